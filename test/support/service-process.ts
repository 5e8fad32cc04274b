import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";

const root = join(import.meta.dir, "..", "..");
export const bunBinary = process.execPath;

/** A free TCP port on loopback, found by letting the OS pick one. */
export function freePort(): number {
  const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
  const port = server.port!;
  server.stop(true);
  return port;
}

export type RunningService = {
  url: string;
  dataDir: string;
  process: Subprocess;
  /** stdout and stderr as they came, interleaved. */
  output(): string;
  /** stdout alone: the log, one JSON object per line (src/logging/logger.ts). */
  stdout(): string;
  stop(signal?: NodeJS.Signals): Promise<number>;
};

/**
 * Starts the real service (`bun src/main.ts`) the way `npm start` does, on a free port and a temp
 * DATA_DIR. `env` may be a function of the service's URL, for settings that must name it (PUBLIC_URL).
 */
export async function startServiceProcess(
  env: Record<string, string> | ((url: string) => Record<string, string>) = {},
  dataDir?: string,
  /** A port picked beforehand, when something started earlier must know the service's address. */
  port: number = freePort(),
  /** What starts it: the service itself by default; `["npm", "start"]` for the README's command, setup and all. */
  command: string[] = [bunBinary, "src/main.ts"],
  /**
   * `logFile`: its stdout (the log) goes to this file, as a collector would take it, instead of into this process,
   * which would then hold every line (a bench at LOG_LEVEL=info makes megabytes a second); `stdout()` is then empty.
   */
  options: { logFile?: string } = {},
): Promise<RunningService> {
  const dir = dataDir ?? mkdtempSync(join(tmpdir(), "scribe-service-"));
  const url = `http://127.0.0.1:${port}`;
  let output = "";
  let stdout = "";
  const child = Bun.spawn(command, {
    cwd: root,
    // A newcomer's settings but for what `env` names (test/support/limits.ts): no PUBLIC_URL, the spec's limits.
    env: { ...process.env, PORT: String(port), DATA_DIR: dir, ...(typeof env === "function" ? env(url) : env) },
    stdout: options.logFile === undefined ? "pipe" : Bun.file(options.logFile),
    stderr: "pipe",
  });
  const piped = [child.stdout, child.stderr].filter((stream) => stream instanceof ReadableStream);
  const drained = piped.map(async (stream) => {
    const decoder = new TextDecoder();
    for await (const chunk of stream) {
      const text = decoder.decode(chunk, { stream: true });
      output += text;
      if (stream === child.stdout) stdout += text;
    }
  });
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`service exited with ${child.exitCode}:\n${output}`);
    try {
      if ((await fetch(`${url}/api/health`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`service did not become healthy:\n${output}`);
    await Bun.sleep(50);
  }
  return {
    url,
    dataDir: dir,
    process: child,
    output: () => output,
    stdout: () => stdout,
    async stop(signal = "SIGTERM") {
      child.kill(signal);
      const code = await child.exited;
      // Its last lines (the log's "stopping") may still be in the pipes; a grandchild holding one open is not waited for long.
      await Promise.race([Promise.all(drained), Bun.sleep(2000)]);
      if (!dataDir) rmSync(dir, { recursive: true, force: true });
      return code;
    },
  };
}

/**
 * The PATH of a person's shell: the test runner's less node_modules/.bin, which npm puts first for its scripts (so
 * `npm test` would find the project's own Bun where a person typing the README's commands does not).
 */
export const plainShellPath = (process.env.PATH ?? "")
  .split(":")
  .filter((dir) => dir !== "" && !/node_modules\/\.bin\/?$/.test(dir))
  .join(":");

/** Runs a project CLI as the README writes it, `bun run <name> ...`, from a plain shell, to completion. */
export async function runCli(name: string, args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  // --silent: without it `bun run` first echoes the script's command line to stderr, which is Bun's, not the CLI's.
  const child = Bun.spawn(["bash", "-c", `bun run --silent ${name} "$@"`, "bun-run", ...args], {
    cwd: root,
    env: { ...process.env, PATH: plainShellPath, ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  if (code === 127) throw new Error(`\`bun run ${name}\` from a plain shell: ${stderr.trim()} (setup must put bun on the PATH)`);
  return { code, stdout, stderr: withoutBunRunLines(stderr) };
}

/** The CLI's own stderr: `bun run` adds a line echoing the script before it, and one naming a failed script's exit code after. */
function withoutBunRunLines(stderr: string): string {
  return stderr
    .split("\n")
    .filter((line, i) => !(i === 0 && line.startsWith("$ ")) && !/^error: script ".*" exited with code \d+$/.test(line))
    .join("\n");
}
