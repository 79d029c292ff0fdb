import packageJson from "@/package.json";

/** The release, from package.json (bundled at build: `node dist/server.mjs` runs without npm's variables). */
export const APP_VERSION: string = packageJson.version;
