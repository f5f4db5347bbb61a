import { Argument, type Command, Option } from 'commander';
import { INPUT_ENCODINGS } from '../../bulk/decode';
import { completesWith } from '../../completion/complete';
import { GET_PET_SUNSET, LIMIT_DEFAULT, LIMIT_MAX, LIMIT_MIN } from '../../schemas/constants';
import { cacheOption, parseColumn, parseConcurrency, parseDelimiter, parseInt64Value, parseLimit, parseName, parseReserve, statusOption } from '../parsers';
import type { Invoke } from '../types';
import type { AddFlags } from './add';
import type { ListOptions } from './list';

export function registerPets(program: Command, invoke: Invoke): void {
  const pets = program.command('pets').helpCommand(false).description('browse and add animals up for adoption');
  pets
    .command('list')
    .description('list animals (GET /pets)')
    .addOption(new Option('--limit <n>', `at most this many animals, ${LIMIT_MIN}-${LIMIT_MAX} (server default ${LIMIT_DEFAULT}); with --all, the page size`).argParser(parseLimit))
    .addOption(statusOption('only animals with this status'))
    .option('--all', `fetch every page, ${LIMIT_MAX} animals per request unless --limit says otherwise: follow the server's Link rel="next" until there is none (exit 7 if it leads off-origin or loops), paced by the plan's rate limit and printed as it comes`)
    .option('--starting-token <token>', 'continue a stopped --all listing from the next-page link it printed (implies --all)')
    // Pages of different ages joined into one listing could repeat or miss animals.
    .addOption(cacheOption().conflicts(['all', 'startingToken']))
    .addHelpText(
      'after',
      `
Examples:
  $ petctl pets list --status available
  $ petctl pets list --limit 100 -o csv > pets.csv
  $ petctl pets list | cut -f2          # names, one per line, when piped
  $ petctl pets list --all --limit 100 -o ndjson > all.ndjson
  $ petctl pets list --all -o json > all.json   # stopped? stderr gives the command that continues
  $ petctl pets list --all -o ndjson --starting-token '/v1/pets?limit=100&after=1200' >> all.ndjson
  $ petctl pets list --query '[?categoryId==\`2\`].name'
  $ petctl pets list --status available --cache 30s   # run again within 30 s: nothing sent

On a terminal, when the service has more animals than the page shows
(Link rel="next"), a line on stderr says so; -q hides it.

--all waits for the plan's minute window as often as it takes; --max-wait
bounds each page's other waits. Stopped (exit 5, Ctrl-C), it leaves what it
fetched on stdout (-o json: a closed array) and prints on stderr:
  stopped after 1,200 animals (page 13); continue with: petctl pets list --all --starting-token '…'`,
    )
    .action((options: ListOptions) =>
      invoke(
        async (ctx) =>
          options.all === true || options.startingToken !== undefined
            ? (await import('./list-all')).listAllRun(options, ctx)
            : (await import('./list')).listRun(options, ctx),
        { jsonResult: true },
      ),
    );
  pets
    .command('add')
    .description('add an animal (POST /pets), or import many from a file with --file; prints what was created')
    .addOption(new Option('--name <name>', "the animal's name (asked for on a terminal when missing)").argParser(parseName))
    .addOption(new Option('--category-id <int64>', 'id of its category (asked for on a terminal when missing)').argParser(parseInt64Value))
    .addOption(statusOption('availability status'))
    .addOption(new Option('--file <path|->', 'import the rows of a JSON array, NDJSON or CSV file (- = stdin)'))
    .addOption(new Option('--format <format>', 'the file format, instead of guessing from the extension or content').choices(['json', 'ndjson', 'csv']))
    .addOption(new Option('--encoding <name>', "the file's text encoding (default: UTF-8, or UTF-16 when a BOM says so)").choices(INPUT_ENCODINGS))
    .addOption(new Option('--delimiter <char>', 'the CSV field separator, or tab (default: ; when the header has ; and no ",", else ,)').argParser(parseDelimiter))
    .addOption(new Option('--column <field=header>', 'the CSV column that fills name, categoryId or status, by its header; repeatable (default: the header of that name, ignoring case, spaces, _ and -)').argParser(parseColumn))
    .addOption(new Option('--id-column <name>', "the column (or field) with your own id for each animal: a row whose id was imported before is not sent again; never sent"))
    .addOption(new Option('--new', 'send every row, even those created by an earlier import (the same content really is new animals)'))
    .addOption(new Option('--reserve <n>', 'leave n requests of every rate-limit window to other commands on the key (default 0)').argParser(parseReserve))
    .addOption(new Option('--dry-run', 'validate and count what would be sent and what was created before; send nothing'))
    .addOption(new Option('--skip-invalid', 'send the valid rows even when some are invalid (reported, exit 6)'))
    .addOption(completesWith(new Option('--concurrency <auto|1-256>', 'requests in flight at once: auto (the default) adapts them to the service\'s answers, a number fixes them').argParser(parseConcurrency), 'concurrency'))
    .addOption(new Option('--journal <path>', 'where to keep the import journal (default: in the state directory)'))
    .addOption(new Option('--retry-unknown', 'look for the rows an earlier run sent without an answer among the animals, and send only those not found'))
    .addHelpText(
      'after',
      `
Examples:
  $ petctl pets add --name Rex --category-id 1 --status available
  $ id=$(petctl pets add --name Tom --category-id 2 --query id)
  $ petctl pets add                     # on a terminal: asks for name, category id and status
  $ petctl pets add --file intake.csv --id-column "Intake No"   # other columns are ignored
  $ petctl pets add --file intake.csv --id-column "Intake No" --dry-run   # count, send nothing
  $ petctl pets add --file intake.csv --id-column "Intake No"   # after fixing rows, exit 5, Ctrl-C: sends the rest
  $ petctl pets add --file shelter.csv                # CSV header: name,categoryId,status
  $ petctl pets add --file export.csv --column name=Animal --column categoryId="Category"   # other headers
  $ petctl pets add --file export.csv --encoding windows-1252   # Excel's "CSV" on Windows
  $ petctl pets add --file export.txt --delimiter tab  # any one character
  $ jq -c '.[]' pets.json | petctl pets add --file - -o ndjson
  $ petctl pets add --file litter.csv --new           # the same rows again are new animals
  $ petctl pets add --file shelter.csv --reserve 10   # leave 10 requests a minute to the front desk
  $ petctl pets add --file shelter.csv --concurrency 8   # 8 requests in flight, whatever the answers
  $ petctl pets add --file shelter.csv --retry-unknown   # after exit 7: finds or resends the unknown rows

A POST is never sent twice: it is retried only after a 429 (not processed).
Off a terminal, or with --no-input (PETCTL_NO_INPUT=1), --name and --category-id are required (exit 2).
Ctrl-C at a prompt exits 130 and sends nothing.
--file paces itself to the plan's rate (--concurrency auto: more requests in
flight while answers keep their latency, fewer when it rises, on a 429 or a
5xx) and remembers every row it created,
per base URL and key: a row created before (same id with --id-column, else
the same content from the same file) is skipped, so rerunning after an edit,
a crash or Ctrl-C sends only the rest. Rows sent without an answer are
"outcome_unknown" and never resent on their own. --retry-unknown first lists
the animals (paced, as pets list --all) and looks for each by the fields it
sent: found once, it is recorded as created; not found, it is sent again;
matching more than one animal, it is reported with their ids (exit 6).
One import at a time per journal: a second waits (up to --max-wait) for the
first to finish, then skips what it created; --dry-run does not wait.
Exit codes with --file: 0 all created (or already), 6 a row invalid,
rejected or ambiguous, 7 a row's outcome unknown, 5 stopped by the rate limit (rerun to
resume), 1 the journal cannot be written (journal_unwritable) or another
import held it past --max-wait (journal_busy), 130 Ctrl-C,
2 usage (e.g. --file with --name). The guide: petctl help bulk-import.`,
    )
    .action((flags: AddFlags) =>
      invoke(
        async (ctx) => {
          const { addRun, toAddOptions } = await import('./add');
          const options = toAddOptions(flags);
          return options.bulk ? (await import('./add-file')).importFile(options.bulk, ctx) : addRun(options, ctx);
        },
        { jsonResult: true },
      ),
    );
  pets
    .command('get')
    .description(`show one animal (GET /pets/{petId}; deprecated, removed on ${GET_PET_SUNSET})`)
    .addArgument(new Argument('<petId>', 'the animal\'s id (int64)').argParser(parseInt64Value))
    .addOption(cacheOption())
    .addHelpText(
      'after',
      `
Examples:
  $ petctl pets get 42
  $ petctl pets get 42 --query name
  $ petctl pets get 42 --cache 5m
  $ petctl pets list --status available     # the replacement`,
    )
    .action((petId: number | bigint, flags: { cache?: number }) => invoke(async (ctx) => (await import('./get')).getRun({ petId, cache: flags.cache }, ctx), { jsonResult: true }));
}
