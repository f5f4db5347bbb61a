// Preloaded by bench/startup.mjs (NODE_OPTIONS=--require): on exit, prints the
// process's peak resident set size (KiB) and CPU time (user + system, µs, all
// threads) on file descriptor 3, so stdout and stderr stay the command's.
'use strict';
const fs = require('node:fs');
process.on('exit', () => {
  try {
    const usage = process.resourceUsage();
    fs.writeSync(3, `${usage.maxRSS} ${usage.userCPUTime + usage.systemCPUTime}\n`);
  } catch {}
});
