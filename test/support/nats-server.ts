/**
 * Starts a throwaway nats-server with JetStream for e2e tests: a temp store dir, a random port on
 * 127.0.0.1. `restart()` and `kill()` keep the store and the port so tests can check durability.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";

export type NatsServer = {
  url: string;
  /** Graceful shutdown, then deletes the store. Call once, at the end. */
  stop(): Promise<void>;
  /** SIGKILL, as in a crash; the store stays so `restart()` can bring the server back. */
  kill(): Promise<void>;
  /** Stops the server (gracefully, if it runs) and starts it again on the same port and store. */
  restart(): Promise<void>;
};

const READY_TIMEOUT_MS = 10_000;

export function natsServerBinary(): string {
  const found = Bun.which("nats-server") ?? ["/usr/sbin/nats-server", "/usr/bin/nats-server"].find(existsSync);
  if (!found) {
    throw new Error("nats-server not found on PATH or in /usr/sbin: run `npm test`, which installs it (Debian package nats-server)");
  }
  return found;
}

export async function startNatsServer(): Promise<NatsServer> {
  const binary = natsServerBinary();
  const storeDir = mkdtempSync(join(tmpdir(), "scribe-nats-"));
  // Port -1 lets the server pick a free port itself (no race with a port we probe and release); we
  // learn it from the log and reuse it on restart so clients can reconnect to the same URL.
  let port = -1;
  let proc = await launch(binary, storeDir, port);
  port = proc.port;
  const url = `nats://127.0.0.1:${port}`;

  const halt = async (signal: "SIGTERM" | "SIGKILL") => {
    if (proc.process.exitCode !== null || proc.process.signalCode !== null) return;
    proc.process.kill(signal);
    await proc.process.exited;
  };

  return {
    url,
    async stop() {
      await halt("SIGTERM");
      rmSync(storeDir, { recursive: true, force: true });
    },
    kill: () => halt("SIGKILL"),
    async restart() {
      await halt("SIGTERM");
      proc = await launch(binary, storeDir, port);
    },
  };
}

async function launch(binary: string, storeDir: string, port: number): Promise<{ process: Subprocess; port: number }> {
  const process = Bun.spawn([binary, "-js", "-sd", storeDir, "-p", String(port), "-a", "127.0.0.1"], {
    stdout: "ignore",
    stderr: "pipe",
  });
  const log: string[] = [];
  const ready = waitForReady(process.stderr as ReadableStream<Uint8Array>, log);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`nats-server did not become ready:\n${log.join("")}`)), READY_TIMEOUT_MS);
  });
  const exited = process.exited.then((code) => {
    throw new Error(`nats-server exited with ${code}:\n${log.join("")}`);
  });
  try {
    const listening = await Promise.race([ready, timeout, exited]);
    return { process, port: listening };
  } catch (error) {
    process.kill("SIGKILL");
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

/** Reads the server log until "Server is ready", returning the client port it listens on. */
async function waitForReady(stderr: ReadableStream<Uint8Array>, log: string[]): Promise<number> {
  const decoder = new TextDecoder();
  let port: number | undefined;
  const reader = stderr.getReader();
  while (true) {
    const { value, done } = await reader.read();
    if (done) throw new Error("nats-server closed its log before becoming ready");
    const text = decoder.decode(value);
    log.push(text);
    const all = log.join("");
    port ??= Number(/Listening for client connections on [^\s]*:(\d+)/.exec(all)?.[1]) || undefined;
    if (port && all.includes("Server is ready")) {
      // Keep draining the pipe so the server never blocks on a full stderr buffer.
      void (async () => {
        while (!(await reader.read()).done);
      })().catch(() => {});
      return port;
    }
  }
}
