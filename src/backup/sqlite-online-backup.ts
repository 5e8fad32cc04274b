/**
 * SQLite's online backup API (sqlite3_backup_init/step/finish), which bun:sqlite does not expose, called
 * through bun:ffi in Debian's libsqlite3 (package libsqlite3-0).
 *
 * Bun links its own SQLite statically. A process must not open one database file with two SQLite
 * libraries at once: each keeps its own table of POSIX locks, and closing a file in one drops the
 * other's locks on it. So the admin process opens the live files (the source) only through this library,
 * never through bun:sqlite, and the copy (a new file) through bun:sqlite only after this library closed it.
 */
import { dlopen, FFIType, ptr, type Pointer } from "bun:ffi";

const OK = 0;
const BUSY = 5;
const LOCKED = 6;
const DONE = 101;
const OPEN_READONLY = 0x1;
const OPEN_READWRITE = 0x2;
const OPEN_CREATE = 0x4;
/** The server's writers wait 5 s for a lock (src/eventstore/sqlite-file.ts); the copy waits as long for a moment without one. */
const BUSY_TIMEOUT_MS = 5000;
const GIVE_UP_AFTER_MS = 60_000;

const symbols = {
  sqlite3_libversion: { args: [], returns: FFIType.cstring },
  sqlite3_open_v2: { args: [FFIType.ptr, FFIType.ptr, FFIType.i32, FFIType.ptr], returns: FFIType.i32 },
  sqlite3_close_v2: { args: [FFIType.ptr], returns: FFIType.i32 },
  sqlite3_busy_timeout: { args: [FFIType.ptr, FFIType.i32], returns: FFIType.i32 },
  sqlite3_errmsg: { args: [FFIType.ptr], returns: FFIType.cstring },
  sqlite3_errstr: { args: [FFIType.i32], returns: FFIType.cstring },
  sqlite3_backup_init: { args: [FFIType.ptr, FFIType.ptr, FFIType.ptr, FFIType.ptr], returns: FFIType.ptr },
  sqlite3_backup_step: { args: [FFIType.ptr, FFIType.i32], returns: FFIType.i32 },
  sqlite3_backup_finish: { args: [FFIType.ptr], returns: FFIType.i32 },
} as const;

type Library = ReturnType<typeof dlopen<typeof symbols>>["symbols"];
let loaded: Library | undefined;

function library(): Library {
  if (loaded) return loaded;
  try {
    loaded = dlopen("libsqlite3.so.0", symbols).symbols;
  } catch (error) {
    throw new Error(
      "the online backup needs the system's SQLite library (Debian: apt-get install libsqlite3-0; scripts/setup.sh does): " +
        (error instanceof Error ? error.message : String(error)),
    );
  }
  return loaded;
}

const cString = (text: string) => Buffer.from(`${text}\0`, "utf8");

/** The version of the library that takes the copy, for the manifest. */
export function onlineBackupLibraryVersion(): string {
  return String(library().sqlite3_libversion());
}

function open(lib: Library, path: string, flags: number): Pointer {
  const out = new BigUint64Array(1);
  const rc = lib.sqlite3_open_v2(cString(path), ptr(out), flags, null);
  const handle = Number(out[0]) as Pointer;
  if (rc !== OK) {
    const message = handle ? String(lib.sqlite3_errmsg(handle)) : String(lib.sqlite3_errstr(rc));
    if (handle) lib.sqlite3_close_v2(handle);
    throw new Error(`cannot open ${path}: ${message}`);
  }
  lib.sqlite3_busy_timeout(handle, BUSY_TIMEOUT_MS);
  return handle;
}

/**
 * Copies the database at `source` into the new file `target` while other processes go on writing it.
 * All pages are copied in one step, inside one read transaction of the source: in WAL mode that takes no
 * lock a writer waits for, and the copy is the database as of one commit (a transactionally consistent
 * snapshot). Copying in several steps would restart from the beginning whenever another process commits.
 */
export async function backupDatabase(source: string, target: string): Promise<void> {
  const lib = library();
  const from = open(lib, source, OPEN_READONLY);
  try {
    const to = open(lib, target, OPEN_READWRITE | OPEN_CREATE);
    try {
      const main = cString("main");
      const backup = lib.sqlite3_backup_init(to, main, from, main);
      if (!backup) throw new Error(`backup of ${source}: ${String(lib.sqlite3_errmsg(to))}`);
      let rc = OK;
      try {
        const deadline = Date.now() + GIVE_UP_AFTER_MS;
        for (;;) {
          rc = lib.sqlite3_backup_step(backup, -1);
          if (rc === DONE) break;
          if ((rc !== BUSY && rc !== LOCKED) || Date.now() > deadline) break;
          await Bun.sleep(50);
        }
      } finally {
        lib.sqlite3_backup_finish(backup);
      }
      if (rc !== DONE) throw new Error(`backup of ${source}: ${String(lib.sqlite3_errstr(rc))}`);
    } finally {
      lib.sqlite3_close_v2(to);
    }
  } finally {
    lib.sqlite3_close_v2(from);
  }
}
