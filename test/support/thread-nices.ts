import { readFileSync, readdirSync } from "node:fs";

/** The nice of each of this process's threads, by thread id (field 19 of /proc/<pid>/task/<tid>/stat). */
export function threadNices(): Map<number, number> {
  const nices = new Map<number, number>();
  for (const tid of readdirSync(`/proc/${process.pid}/task`)) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${process.pid}/task/${tid}/stat`, "utf8");
    } catch (error) {
      // A thread that ended between the listing and the read (an earlier test's, finishing) has no nice to report.
      if ((error as NodeJS.ErrnoException).code === "ENOENT" || (error as NodeJS.ErrnoException).code === "ESRCH") continue;
      throw error;
    }
    // The command name (field 2) may hold spaces: count the fields after its closing parenthesis.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    nices.set(Number(tid), Number(fields[16]));
  }
  return nices;
}
