// Which modules a run of the real `svc` loads: a resolve hook appends every resolved URL to a file,
// and at exit the files of every CommonJS module in the require cache (a package loaded by
// `require`, which an asynchronous resolve hook does not see) and Node's own undici modules, if
// any were loaded. Start-up time follows what a command loads, so tests can hold a command to
// loading only what it needs.
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { SVC_BIN, type CliSandbox } from './cli.js';

/**
 * Writes into `dir` a module to preload with `--import` that logs what the process loads to
 * `log`: through module.registerHooks where Node has it (22.15+; module.register is deprecated
 * there), else through module.register and a hooks module (Node 20).
 */
export async function writeModuleTracer(dir: string, log: string): Promise<string> {
  const hooks = join(dir, 'hooks.mjs');
  const logText = JSON.stringify(log);
  await writeFile(
    hooks,
    `import { appendFileSync } from 'node:fs';\nexport async function resolve(s, c, next) { const r = await next(s, c); appendFileSync(${logText}, r.url + '\\n'); return r; }\n`,
  );
  const tracer = join(dir, 'trace-modules.mjs');
  await writeFile(
    tracer,
    `import { appendFileSync } from 'node:fs';\nimport * as module from 'node:module';\nimport { pathToFileURL } from 'node:url';\n` +
      `const note = (url) => appendFileSync(${logText}, url + '\\n');\n` +
      `if (typeof module.registerHooks === 'function') module.registerHooks({ resolve(s, c, next) { const r = next(s, c); note(r.url); return r; } });\n` +
      `else module.register(${JSON.stringify(pathToFileURL(hooks).href)});\n` +
      `const cache = module.createRequire(import.meta.url).cache;\n` +
      `process.on('exit', () => {\n` +
      `  for (const f of Object.keys(cache)) note(pathToFileURL(f).href);\n` +
      `  for (const m of process.moduleLoadList) if (m.includes('undici')) note('builtin:' + m);\n` +
      `});\n`,
  );
  return pathToFileURL(tracer).href;
}

/**
 * The URLs of the modules `svc ARGS` resolved, in order, then the CommonJS ones it had loaded when
 * it exited, and its exit status and stderr. `until`: a long-running command (a daemon) is sent
 * SIGTERM once it prints a stdout line matching it.
 */
export async function modulesLoadedBy(
  sandbox: CliSandbox,
  env: Record<string, string>,
  args: readonly string[],
  until?: RegExp,
): Promise<{ status: number | null; stderr: string; modules: string[] }> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-module-trace-'));
  try {
    const log = join(dir, 'modules.txt');
    const tracer = await writeModuleTracer(dir, log);
    await writeFile(log, '');
    // Asynchronously: the daemon answering it may run in this process.
    const child = spawn(process.execPath, ['--import', tracer, SVC_BIN, ...args], {
      env: { ...sandbox.env, ...env },
      stdio: ['ignore', until ? 'pipe' : 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
    let stdout = '';
    child.stdout?.setEncoding('utf8').on('data', (s: string) => {
      const seen = stdout.split('\n').some((line) => until!.test(line));
      stdout += s;
      if (!seen && stdout.split('\n').some((line) => until!.test(line))) child.kill('SIGTERM');
    });
    const status = await new Promise<number | null>((resolve) => child.on('close', resolve));
    return { status, stderr, modules: (await readFile(log, 'utf8')).split('\n').filter(Boolean) };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The packages of `modules` among `names`. */
export const packagesAmong = (modules: readonly string[], names: readonly string[]): string[] =>
  modules.filter((m) => names.some((name) => m.includes(`/node_modules/${name}/`)));
