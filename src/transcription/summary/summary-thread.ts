import { summarizeExtractively } from "./extractive.ts";
import type { SummaryInput, SummaryResult } from "./summarizer.ts";
import { serveOnThread } from "../../core/background-thread.ts";

/** The extractive summariser's thread (see ExtractiveSummarizer). */
serveOnThread<SummaryInput, SummaryResult>(summarizeExtractively);
