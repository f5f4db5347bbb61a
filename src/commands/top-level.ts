import { Argument, type Command, Option } from 'commander';
import { DEFAULT_HOST, DEFAULT_MAX_ANIMALS, DEFAULT_PORT } from '../sandbox/defaults';
import { ENTERPRISE_DEFAULT_PER_DAY, ENTERPRISE_DEFAULT_PER_MINUTE } from '../sandbox/keys';
import { cacheOption, parseEnterpriseQuota, parseHost, parseMaxAnimals, parseMinuteMs, parsePort } from './parsers';
import type { Shell } from '../completion/complete';
import type { SandboxOptions } from './sandbox';
import type { Invoke } from './types';

const SHELLS: readonly Shell[] = ['bash', 'zsh', 'fish'];

/** The commands beside the groups: sandbox, api, cache, completion. */
export function registerTopLevel(program: Command, invoke: Invoke): void {
  program
    .command('sandbox')
    .description('run the embedded Pet Adoption Service in the foreground until Ctrl-C')
    .addOption(new Option('--host <host>', 'address to bind (loopback unless you say otherwise)').argParser(parseHost).default(DEFAULT_HOST))
    .addOption(new Option('--port <port>', 'port (0 picks a free one)').argParser(parsePort).default(DEFAULT_PORT))
    .option('--data <file>', 'keep animals in this file across restarts (default: in memory)')
    .addOption(new Option('--max-animals <n>', 'the most animals kept; a create beyond it gets 507').argParser(parseMaxAnimals).default(DEFAULT_MAX_ANIMALS))
    .addOption(
      new Option('--enterprise-quota <per-minute>/<per-day>', 'the sandbox-enterprise key\'s quotas')
        .argParser(parseEnterpriseQuota)
        .default(
          { perMinute: ENTERPRISE_DEFAULT_PER_MINUTE, perDay: ENTERPRISE_DEFAULT_PER_DAY },
          `${ENTERPRISE_DEFAULT_PER_MINUTE}/${ENTERPRISE_DEFAULT_PER_DAY}`,
        ),
    )
    .addOption(new Option('--minute-ms <ms>', 'test hook: length of the rate-limit "minute" (the day is 1440 of them)').argParser(parseMinuteMs).hideHelp())
    .addHelpText(
      'after',
      `
Examples:
  $ petctl sandbox --port 4010 --data pets.json
  $ petctl sandbox --port 0 --enterprise-quota 1000000/100000000   # load tests: 200s, not 429s
  $ petctl --base-url http://127.0.0.1:4010/v1 pets list
  $ curl -H 'Authorization: Bearer sandbox-free' http://127.0.0.1:4010/v1/pets

Stopped by Ctrl-C or SIGTERM, it ends by that signal (a shell shows 130 or 143).
Exit codes: 2 for a bad flag value; 1 when the port is taken or the data file
is unusable (it is never overwritten).
Reference: petctl help sandbox (keys, limits, paging, timeouts, the data file).`,
    )
    .action((options: SandboxOptions) => invoke(async (ctx) => (await import('./sandbox')).sandboxRun(options, ctx)));

  // No default array: commander would print it as (default: []) in --help.
  const collect = (value: string, previous: string[] | undefined) => [...(previous ?? []), value];
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
    .action((path: string, flags: { method?: string; rawField?: string[]; field?: string[]; input?: string; header?: string[]; include?: boolean; paginate?: boolean; cache?: number }) => {
      const { method, input, cache } = flags;
      const options = { path, method, input, cache, rawFields: flags.rawField ?? [], typedFields: flags.field ?? [], headers: flags.header ?? [], include: flags.include === true };
      return invoke(
        async (ctx) => (flags.paginate ? (await import('./api-paginate')).apiPaginateRun(options, ctx) : (await import('./api')).apiRun(options, ctx)),
        { jsonResult: true },
      );
    });

  const cache = program
    .command('cache')
    .helpCommand(false)
    .description('the response cache that --cache reads and fills (pets list, pets get, api)')
    .addHelpText('after', '\nExample:\n  $ petctl cache clear');
  cache
    .command('clear')
    .description('remove every cached answer, of every profile')
    .addHelpText(
      'after',
      `
Cached answers live in $XDG_CACHE_HOME/petctl (else the system's cache
directory, ~/.cache/petctl on Linux). Each expires on its own after the
duration of the --cache that stored it, and a write (pets add, api -X POST)
clears those of its service; clear removes them all at once.

Example:
  $ petctl cache clear`,
    )
    .action(() => invoke(async (ctx) => (await import('./cache')).cacheClearRun(ctx)));

  // The hidden `__complete -- <words…>` runs on each TAB, as in gh and wrangler (`--`: the typed flags are words).
  program
    .command('completion')
    .description('print a shell completion script (bash, zsh or fish)')
    .addArgument(new Argument('<shell>', 'the shell').choices(SHELLS))
    .addHelpText(
      'after',
      `
The script completes commands, flags, --status/--output values, the guides
and commands after help, and profile names (read from the config on each TAB,
so new profiles complete at once).

Install:
  bash  $ echo 'source <(petctl completion bash)' >> ~/.bashrc
  zsh   $ petctl completion zsh > "\${fpath[1]}/_petctl"     # then open a new shell
  fish  $ petctl completion fish > ~/.config/fish/completions/petctl.fish

Exit codes: 0 ok, 2 unknown or missing shell.`,
    )
    .action((shell: Shell) => invoke(async (ctx) => (await import('./completion')).completionRun({ shell }, ctx)));
  program
    .command('__complete', { hidden: true })
    .description('print the completions for a partly typed command line (used by the completion scripts)')
    .argument('[words...]', 'the words after petctl')
    .action((words: string[]) => invoke(async (ctx) => (await import('./completion')).completeRun({ words, program }, ctx)));
}
