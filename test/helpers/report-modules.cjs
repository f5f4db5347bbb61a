// Preloaded (NODE_OPTIONS=--require) by test/e2e/startup-modules.test.ts: on exit,
// writes the Node built-ins the process loaded to the file PETCTL_TEST_MODULES_OUT names.
'use strict';
const fs = require('node:fs');
process.on('exit', () => {
  fs.writeFileSync(process.env.PETCTL_TEST_MODULES_OUT, process.moduleLoadList.join('\n'));
});
