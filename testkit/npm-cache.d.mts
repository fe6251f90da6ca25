// The types of npm-cache.mjs (plain JavaScript, so that CI runs it with Node alone).
export declare function binOf(spec: string): string;
export declare function nodeRelease(version: string): string;
