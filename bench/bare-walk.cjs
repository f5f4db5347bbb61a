// For scale beside petctl's listings (bench/enterprise.mjs): undici's request() following Link
// rel="next" from the URL given, one page after another, with nothing checked, stored or
// printed. It prints the number of items read. What it takes is what this machine and the
// scripted service leave of the floor; what petctl takes beyond it is petctl's.
'use strict';
const { Agent, request } = require('undici');

const dispatcher = new Agent();
(async () => {
  let url = process.argv[2];
  let items = 0;
  while (url) {
    const response = await request(url, { dispatcher, headers: { authorization: 'Bearer pk_bench_enterprise' } });
    items += JSON.parse(await response.body.text()).length;
    const next = /<([^>]+)>;\s*rel="next"/.exec(response.headers.link ?? '');
    url = next ? new URL(next[1], url).toString() : undefined;
  }
  process.stdout.write(`${items}\n`);
  await dispatcher.close();
})();
