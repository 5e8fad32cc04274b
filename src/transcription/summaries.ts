import type { EventMetadata } from "../core/event.ts";
import { DomainError, ValidationFailedError } from "../core/errors.ts";
import type { TaskCommand } from "../tasks/commands.ts";
import type { Segment } from "../tasks/segments.ts";
import type { Tasks } from "../tasks/service.ts";
import type { WaitForProjections } from "../core/projection.ts";
import type { Summarizer } from "./summary/summarizer.ts";

/**
 * `GET /api/tasks/{id}/refresh-summary`: summary and mind map made again from the current transcript
 * (edits included) and recorded (SummaryRefreshed). When the summariser fails, the failure is recorded
 * (SummaryFailed), the task keeps what it had and the answer is 502.
 */
export class Summaries {
  constructor(
    private readonly tasks: Tasks,
    private readonly summarizer: Summarizer,
    private readonly waitFor: WaitForProjections,
  ) {}

  async refresh(userId: number, taskId: number, metadata: EventMetadata): Promise<{ summary: string; mindmap: string }> {
    const task = await this.tasks.owned(userId, taskId);
    const segments = ((await this.tasks.transcript(taskId))?.segments ?? []) as Segment[];
    if (segments.length === 0) throw new ValidationFailedError({ segments: ["The task has no transcript to summarise yet."] });
    const record = (command: TaskCommand) => this.tasks.commands.run(taskId, command, { metadata });
    let result: Awaited<ReturnType<Summarizer["summarize"]>>;
    try {
      result = await this.summarizer.summarize({ title: task.name, segments });
    } catch (error) {
      const reason = `Summary and mind map could not be made: ${(error as Error).message}`;
      await record({ type: "RecordSummaryFailure", reason });
      throw new DomainError(502, reason);
    }
    const { position } = await record({ type: "RecordSummary", summary: result.summary, mindmap: result.mindmap });
    if (position !== null) await this.waitFor(position);
    return { summary: result.summary ?? "", mindmap: result.mindmap ?? "" };
  }
}
