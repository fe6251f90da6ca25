// What `npm install` of the packed Venom runs (scripts/package.mjs): the C parts of this package, built for the
// machine they land on, as this package's build does in the repository. Each says what is missing and what is used
// instead when there is no C compiler or no Node headers (build-c.mjs); the install goes on without them.
await import("./launcher/build.mjs");
await import("./pty-exec/build.mjs");
await import("./addon/build.mjs");
