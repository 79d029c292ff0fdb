import { Webhook } from "lucide-react";

export default function AuthLayout({ children }: { children: React.ReactNode }) {
  return (
    <div className="flex min-h-screen items-center justify-center px-4">
      <div className="w-full max-w-sm rounded-xl border border-zinc-200 bg-white p-8 shadow-sm dark:border-zinc-800 dark:bg-zinc-900">
        <div className="mb-6 flex items-center gap-2">
          <Webhook className="h-6 w-6 text-indigo-600" aria-hidden />
          <span className="text-lg font-semibold">Hookplane</span>
        </div>
        {children}
      </div>
    </div>
  );
}
