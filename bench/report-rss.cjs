// Preloaded by bench/startup.mjs (NODE_OPTIONS=--require): prints the process's
// peak resident set size on exit, on file descriptor 3 so stdout and stderr stay the command's.
'use strict';
const fs = require('node:fs');
process.on('exit', () => {
  try {
    fs.writeSync(3, `${process.resourceUsage().maxRSS}\n`);
  } catch {}
});
