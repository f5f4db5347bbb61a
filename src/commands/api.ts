import type { Command } from 'commander';
import type { Context } from '../context';
import { InvalidResponseError, UsageError } from '../errors';
import { type ApiOptions, requestIo } from './api-request';
import { cacheOption } from './parsers';
import type { Invoke } from './types';

// No default array: commander would print it as (default: []) in --help.
const collect = (value: string, previous: string[] | undefined) => [...(previous ?? []), value];

export function registerApi(program: Command, invoke: Invoke): void {
  program
    .command('api')
    .description("send any request to the service, with the profile's key and rate-limit handling (like gh api)")
    .argument('<path>', 'relative to the base URL (/pets, pets, /pets?limit=5), or an absolute URL on its origin')
    .option('-X, --method <method>', 'HTTP method (default GET, or POST with fields or --input)')
    .option('-f, --raw-field <key=value>', 'a string field (repeatable)', collect)
    .option('-F, --field <key=value>', 'a typed field: int64, true, false, null, @file (repeatable)', collect)
    .option('--input <file>', 'the request body from a file, or - for stdin (fields then go in the query)')
    .option('-H, --header <header>', "an extra header 'Name: value' (repeatable; not Authorization)", collect)
    .option('-i, --include', 'print the status line and response headers first')
    .option('--paginate', 'GET every page (Link rel="next") and print their items as one JSON array')
    .addOption(cacheOption())
    .addHelpText(
      'after',
      `
With GET, fields become query parameters; otherwise they make a JSON body.
The body prints as sent; JSON is pretty-printed on a terminal or with -o json,
and -o ndjson prints an array one element per line. Errors exit as any command
(3 not found, 4 auth, 5 rate limited, 6 rejected, 7 server/network); another
origin, or -H Authorization, exits 2 before anything is sent.

--paginate follows Link rel="next" from page to page, paced as pets list --all,
and prints one JSON array of every page's items (-o ndjson: one per line, as
they come); --query applies to the whole array. A page that is not a JSON
array exits 7 and names its URL.

Examples:
  $ petctl api /pets
  $ petctl api -X GET /pets -f status=available -F limit=5
  $ petctl api /pets -F name=Rex -F categoryId=9007199254740993
  $ petctl api /pets --input rex.json        # rex.json: {"name":"Rex","categoryId":1}
  $ petctl api -i /pets --query '[].name'
  $ petctl api --paginate '/pets?limit=100' --query 'length(@)'
  $ petctl api --paginate /pets -f status=sold -o ndjson
  $ petctl api -X GET /pets -f status=available --cache 1m`,
    )
    .action((path: string, flags: { method?: string; rawField?: string[]; field?: string[]; input?: string; header?: string[]; include?: boolean; paginate?: boolean; cache?: number }) =>
      invoke(
        (ctx) =>
          apiRun(
            {
              path,
              method: flags.method,
              rawFields: flags.rawField ?? [],
              typedFields: flags.field ?? [],
              input: flags.input,
              headers: flags.header ?? [],
              include: flags.include === true,
              paginate: flags.paginate === true,
              cache: flags.cache,
            },
            ctx,
          ),
        { jsonResult: true },
      ),
    );
}

export async function apiRun(options: ApiOptions, ctx: Context): Promise<void> {
  if (options.paginate && options.cache !== undefined) throw new UsageError('--cache keeps one answer, and --paginate follows many: leave out one of them');
  if (options.paginate) return (await import('./api-paginate')).apiPaginateRun(options, ctx);
  const { checkFlags, buildRawRequest } = await import('../api/endpoints/raw-request');
  const { method } = checkFlags(options);
  if (options.cache !== undefined && method !== 'GET') {
    const fieldsMadeItPost = options.method === undefined && options.input === undefined;
    throw new UsageError(
      `--cache applies to GET requests, not ${method}: a write is always sent, and clears the cached answers of its service`,
      fieldsMadeItPost ? 'fields without -X make a POST; add -X GET to send them as query parameters' : undefined,
    );
  }
  const [{ http, target }, output] = await Promise.all([ctx.api(), import('../output/api-response')]);
  const request = await buildRawRequest(options, target.baseUrl, requestIo(ctx));
  // -i: the head of the final answer, an error's too (before the error on stderr); reset before every attempt.
  let head = '';
  if (options.include) {
    request.hooks = {
      beforeSend: () => void (head = ''),
      onAnswer: (answer) => (head = output.renderHead(answer, ctx.terminal.stdoutIsTerminal)),
    };
  }
  const answer = await http.send({ ...request, cacheForMs: options.cache }).finally(() => ctx.io.stdout.write(head));
  if (ctx.globals.query === undefined) {
    ctx.io.stdout.write(output.renderBody(answer.text, ctx.globals.output, ctx.terminal.stdoutIsTerminal));
    return;
  }
  const json = output.answerJson(answer.text);
  if (json === undefined) throw new InvalidResponseError(`${request.method} ${answer.url} answered ${answer.status} without a JSON body for --query`, answer.status);
  const { writeQueried } = await import('../output/query');
  writeQueried(ctx.io.stdout, ctx.terminal.stdoutIsTerminal, ctx.globals.query, json.value, ctx.globals.output);
}
