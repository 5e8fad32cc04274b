import { readFileSync, readlinkSync } from "node:fs";
import { hostname, uptime } from "node:os";

/** Who this process is, for the leases it takes: readable in the `leases` collection, and unique by its random part. */
export const processHolderId = () => `${hostname()}:${process.pid}:${crypto.randomUUID().slice(0, 8)}`;

/** The process behind a holder: its pid, and where that pid means this process (null: unknown). */
export type HolderProcess = { pid: number; pidSpace: string | null };

/**
 * Where a pid names one process: this boot of this machine (the kernel's boot id) and this PID namespace (its
 * inode, as /proc/self/ns/pid links to it). Two containers on one host, each its own PID namespace, may both have
 * pid 7 under the same host name; a process may only judge a holder's pid dead when the holder ran in the same
 * space. Outside Linux there are no PID namespaces: the host name and the minute it booted. Null when unknown.
 */
export function currentPidSpace(): string | null {
  try {
    if (process.platform === "linux") {
      const boot = readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();
      const namespace = readlinkSync("/proc/self/ns/pid");
      return boot && namespace ? `${boot}/${namespace}` : null;
    }
    return `${hostname()}/booted:${Math.round((Date.now() / 1000 - uptime()) / 60)}`;
  } catch {
    return null;
  }
}

/** This process, as the leases it takes record their holder. */
export const thisProcess: HolderProcess = { pid: process.pid, pidSpace: currentPidSpace() };
