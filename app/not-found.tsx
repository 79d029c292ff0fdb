import Link from "next/link";

export default function NotFound() {
  return (
    <div className="mx-auto max-w-lg py-24 text-center">
      <h1 className="text-xl font-semibold">Not found</h1>
      <p className="mt-2 text-sm text-zinc-500">That page or record does not exist, or it was deleted.</p>
      <Link href="/agents" className="mt-6 inline-block text-sm text-indigo-600 hover:underline">
        Back to agents
      </Link>
    </div>
  );
}
