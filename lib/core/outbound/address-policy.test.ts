import { describe, expect, it } from "vitest";
import { hostMatches, isPrivateAddress } from "./address-policy";

describe("isPrivateAddress", () => {
  it.each([
    "127.0.0.1", "10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.1", "169.254.169.254",
    "100.64.0.1", "0.0.0.0", "224.0.0.1", "255.255.255.255", "::1", "::", "fe80::1", "fd00::1",
    "::ffff:127.0.0.1", "::ffff:7f00:1", "[::1]", "64:ff9b::a00:1",
    "::ffff:a9fe:a9fe", "::ffff:10.0.0.1", "0:0:0:0:0:ffff:c0a8:101", "::10.0.0.1", "fd12:3456::1", "fe80::1%eth0",
    "fec0::1", "ff02::1", "2002:a00:1::", "100.127.255.255", "198.19.0.1", "0:0:0:0:0:0:0:1",
    "999.1.1.1", "not-an-ip", "1.2.3", "01.2.3.4.5",
  ])("refuses %s", (ip) => {
    expect(isPrivateAddress(ip)).toBe(true);
  });

  it.each(["93.184.216.34", "8.8.8.8", "172.32.0.1", "100.128.0.1", "2606:4700::1111", "::ffff:8.8.8.8", "2001:4860:4860::8888", "1:2:3:4:5:6:7:8", "[2a00:1450::1]"])("allows %s", (ip) => {
    expect(isPrivateAddress(ip)).toBe(false);
  });
});

describe("hostMatches", () => {
  it("matches exact names, *.suffix subdomains (not the apex), * and IP literals, in any case and with a trailing dot", () => {
    expect(hostMatches("API.Slack.com.", "api.slack.com")).toBe(true);
    expect(hostMatches("hooks.slack.com", "*.slack.com")).toBe(true);
    expect(hostMatches("slack.com", "*.slack.com")).toBe(false);
    expect(hostMatches("evilslack.com", "*.slack.com")).toBe(false);
    expect(hostMatches("[::1]", "::1")).toBe(true);
    expect(hostMatches("anything.example", "*")).toBe(true);
  });
});
