/** scripts/build-stamp.mjs: whether the build on disk was made from the sources as they are now. */
export declare const root: string;
export declare function sourceFingerprint(dir?: string): string;
export declare function buildIsCurrent(fingerprint?: string): boolean;
export declare function writeBuildStamp(): void;
