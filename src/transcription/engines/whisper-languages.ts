/**
 * The languages whisper.cpp knows, by code, in the order of its language tokens (whisper.cpp's g_lang): a model
 * knows the first n of them (99 for most multilingual models, 100 with Cantonese for large-v3), English-only
 * models (`*.en`) English alone. whisper.cpp does not refuse a code it does not know: it decodes with the wrong
 * language token, so the engine checks a task's language against this list first.
 */
export const whisperLanguages: readonly string[] = (
  "en zh de es ru ko fr ja pt tr pl ca nl ar sv it id hi fi vi he uk el ms cs ro da hu ta no th ur hr bg lt la mi ml cy sk " +
  "te fa lv bn sr az sl kn et mk br eu is hy ne mn bs kk sq sw gl mr pa si km sn yo so af oc ka be tg sd gu am yi lo uz fo " +
  "ht ps tk nn mt sa lb my bo tl mg as tt haw ln ha ba jw su yue"
).split(" ");

/** The codes a model with `count` language tokens knows (0: an English-only model, which knows English). */
export function languagesOfModel(count: number): readonly string[] {
  return count === 0 ? ["en"] : whisperLanguages.slice(0, count);
}
