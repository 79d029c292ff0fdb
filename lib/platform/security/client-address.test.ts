import { expect, test } from "vitest";
import { clientAddressOf, normalizeAddress } from "./client-address";

test("one throttle key per client: IPv4-mapped IPv6 as IPv4, IPv6 as its /64", () => {
  expect(normalizeAddress("::ffff:203.0.113.7")).toBe("203.0.113.7");
  expect(normalizeAddress("203.0.113.7")).toBe("203.0.113.7");
  expect(normalizeAddress("2001:db8:1:2:aaaa::1")).toBe("2001:db8:1:2::/64");
  expect(normalizeAddress("2001:0db8:0001:0002:ffff:ffff:ffff:ffff")).toBe("2001:db8:1:2::/64");
  expect(normalizeAddress("2001:db8::1")).toBe("2001:db8:0:0::/64");
  expect(normalizeAddress("::1")).toBe("0:0:0:0::/64");
});

test("X-Forwarded-For counts only behind a trusted proxy, and only its last entry", () => {
  expect(clientAddressOf("127.0.0.1", "198.51.100.9", false)).toBe("127.0.0.1");
  // The client wrote the first entry; the proxy appended the address it saw.
  expect(clientAddressOf("10.0.0.2", "198.51.100.9, 203.0.113.7", true)).toBe("203.0.113.7");
  expect(clientAddressOf("10.0.0.2", undefined, true)).toBe("10.0.0.2");
  expect(clientAddressOf(undefined, undefined, false)).toBe("unknown");
});
