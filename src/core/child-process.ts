/**
 * The command line for a child process that must not outlive this one: under `setpriv --pdeathsig KILL`
 * (util-linux) the kernel kills it when its parent dies, kill -9 included, so a worker that crashes
 * leaves no recogniser or ffmpeg running on. Without setpriv the command runs as it is.
 */
const setpriv = Bun.which("setpriv");

export function diesWithParent(argv: string[]): string[] {
  return setpriv ? [setpriv, "--pdeathsig", "KILL", "--", ...argv] : argv;
}

/** Whether a process of this host with this pid is running (false once it has exited). */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== "ESRCH";
  }
}
