import { describe, expect, it } from 'vitest';
import { apiPaginateRun } from '../../src/commands/api-paginate';
import { servedContext } from '../helpers/terminal';

/** `petctl api --paginate`'s run (seam 2), for what needs a terminal: the escapes, and the status line while --query waits. */

const options = { path: '/orders', rawFields: [], typedFields: [], headers: [], include: false };
const linked = (body: string, next?: string) => ({ status: 200, body, headers: (next === undefined ? {} : { Link: `<${next}>; rel="next"` }) as Record<string, string> });

describe.concurrent('petctl api --paginate on a terminal', () => {
  it('prints the one array pretty, with control and bidi characters of the items as escapes', async (t) => {
    const { server, run } = await servedContext(t);
    server.reply(linked('[{"note":"red\u009b31m"}]', '/v1/orders?page=2'), linked('[{"note":"\u202eevil"}]'));
    const { ctx, io } = run({ stdoutColumns: 80 });
    await apiPaginateRun(options, ctx);
    expect(io.stdout.text()).toBe('[\n  {\n    "note": "red\\u009b31m"\n  },\n  {\n    "note": "\\u202eevil"\n  }\n]\n');
  });

  it('with --query, the status line counts pages and items while stdout waits, and is cleared at the end', async (t) => {
    const { server, run } = await servedContext(t);
    server.reply(linked('[1,2]', '/v1/orders?page=2'), linked('[3]'));
    const { ctx, io } = run({ stdoutColumns: 80, stderrTTY: true, globals: { query: 'length(@)' } });
    await apiPaginateRun(options, ctx);
    expect(io.stdout.text()).toBe('3\n');
    expect(io.stderr.text()).toBe('\r\x1b[Kpetctl: page 1, 2 items so far\r\x1b[Kpetctl: page 2, 3 items so far\r\x1b[K');
  });
});
