#!/usr/bin/env node
console.log("venom-conformance: not built yet");
