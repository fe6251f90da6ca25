#!/usr/bin/env node
console.log("venom-mux");
