import type { EventMetadata } from "../core/event.ts";
import { DomainError, ValidationFailedError } from "../core/errors.ts";
import type { Tasks } from "../tasks/service.ts";
import type { WaitForProjections } from "../core/projection.ts";
import type { Summarizer } from "./summary/summarizer.ts";
import { summariseAndRecord } from "./summary-refresh.ts";

/**
 * `GET /api/tasks/{id}/refresh-summary`: summary and mind map made again from the current transcript
 * (edits included) and recorded (SummaryRefreshed) with the transcript's version, which ends its mark of out of
 * date unless an edit landed meanwhile. When the summariser fails, the failure is recorded (SummaryFailed), the
 * task keeps what it had and the answer is 502.
 */
export class Summaries {
  constructor(
    private readonly tasks: Tasks,
    private readonly summarizer: Summarizer,
    private readonly waitFor: WaitForProjections,
  ) {}

  async refresh(userId: number, taskId: number, metadata: EventMetadata): Promise<{ summary: string; mindmap: string }> {
    const task = await this.tasks.owned(userId, taskId);
    const transcript = await this.tasks.transcript(taskId);
    const segments = transcript?.segments ?? [];
    if (!transcript || segments.length === 0) throw new ValidationFailedError({ segments: ["The task has no transcript to summarise yet."] });
    const source = { taskId, title: task.name, segments, transcriptVersion: transcript.transcriptVersion };
    const { made, failure, result } = await summariseAndRecord(this.tasks.commands, this.summarizer, source, { metadata });
    if (result.position !== null) await this.waitFor(result.position);
    if (failure !== null) throw new DomainError(502, failure);
    return { summary: made.summary ?? "", mindmap: made.mindmap ?? "" };
  }
}
