#!/usr/bin/env node
// The one executable. The only place that ends the process: every error a command throws comes
// back here and becomes an exit code through the table in cli/exit-codes.ts (CONTRACT §10).
// `svc --version` alone, which scripts run to check for svc, is answered before the CLI loads.
import module from 'node:module';

const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-v')) {
  const version = await import('../dist/cli/version.js').catch(() => undefined);
  if (version) {
    process.stdout.write(`${version.cliVersion()}\n`);
    process.exit(0);
  }
}

// Node 22.1 and later keep the code they compile for svc's modules (in NODE_COMPILE_CACHE, else
// node-compile-cache in the system's temporary folder) and reuse it at the next start, as npm
// does. Node 20 has no such cache: nothing happens there.
module.enableCompileCache?.();

let cli;
try {
  cli = await import('../dist/cli/main.js');
} catch (err) {
  if (err?.code === 'ERR_MODULE_NOT_FOUND' && String(err.message).includes('dist')) {
    process.stderr.write('svc is not built: run `npm run build` in the package folder.\n');
    process.exit(1);
  }
  throw err;
}

// `svc ... | head -1`: the reader left, which is not the command failing. Stop quietly. Any other
// failure to write the output (a full disk, a closed stdout) is: the command's output is lost, and
// a script must not read exit 0 (a key created and printed to a file that stayed empty).
let outputLost;
process.stdout.on('error', (err) => {
  if (err?.code === 'EPIPE') process.exit(0);
  outputLost ??= err;
});
// Diagnostics nobody reads any more (`2>&1 | head -1`) change nothing: the exit code stays the
// command's (4 for a missing automation), where an unhandled EPIPE made it 1.
process.stderr.on('error', () => undefined);

let code;
try {
  code = await cli.main(args);
} catch (err) {
  cli.reportError(err);
  code = cli.exitCodeFor(err);
}

// Let piped output drain before exiting; an explicit exit also ends a keychain call or socket
// that would otherwise keep the process alive.
await Promise.all(
  [process.stdout, process.stderr].map((s) => new Promise((resolve) => (s.writableLength ? s.write('', resolve) : resolve()))),
);
// A failed write reports its error on a later tick.
await new Promise((resolve) => setImmediate(resolve));
if (outputLost) {
  process.stderr.write(`error: could not write the output to stdout (${outputLost.code ?? outputLost.message}): it is lost\n`);
  if (code === 0) code = 1;
}
process.exit(code);
