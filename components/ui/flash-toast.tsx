"use client";

import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useEffect } from "react";
import { toast } from "sonner";

/**
 * Shows a toast for the result of an action that redirected here (`?created=1`), then drops the
 * parameter so a reload or a shared link does not repeat it.
 */
export function FlashToast({ param, message }: { param: string; message: string }) {
  const params = useSearchParams();
  const router = useRouter();
  const pathname = usePathname();
  const present = params.has(param);
  useEffect(() => {
    if (!present) return;
    toast.success(message);
    const rest = new URLSearchParams(params);
    rest.delete(param);
    router.replace(rest.size ? `${pathname}?${rest}` : pathname, { scroll: false });
  }, [present, message, param, params, pathname, router]);
  return null;
}
