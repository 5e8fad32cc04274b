import { join, resolve } from "node:path";

/** One of whisper.cpp's ggml model files: its catalogue name, its file name, and its pinned size and SHA-256. */
export type WhisperModel = { name: string; file: string; size: number; sha256: string };

/** Where whisper.cpp's own download script fetches them (models/download-ggml-model.sh); WHISPER_MODEL_BASE_URL replaces it. */
export const defaultWhisperModelsUrl = "https://huggingface.co/ggerganov/whisper.cpp/resolve/main";

const model = (name: string, size: number, sha256: string): WhisperModel => ({ name, file: `ggml-${name}.bin`, size, sha256 });

/**
 * The models `bun run admin model pull` fetches, pinned: a file whose size or SHA-256 differs is refused, so a changed
 * or tampered upload never reaches the engine. The values are Hugging Face's LFS metadata (`lfs.sha256`, `size`) of
 * ggerganov/whisper.cpp at revision 5359861c739e955e79d9a303bcbc70fb988958b1, as recorded by projects that pin them
 * (QuentinSylvestre/SamWhispers src/samwhispers/model_manifest.py, a captured `/api/models/ggerganov/whisper.cpp?blobs=true`
 * answer), and agree with the Nix SRI hashes published for tiny to medium. whisper.cpp's models/README.md lists SHA-1s.
 */
export const whisperModels: readonly WhisperModel[] = [
  model("tiny.en", 77_704_715, "921e4cf8686fdd993dcd081a5da5b6c365bfde1162e72b08d75ac75289920b1f"),
  model("tiny", 77_691_713, "be07e048e1e599ad46341c8d2a135645097a538221678b7acdd1b1919c6e1b21"),
  model("base.en", 147_964_211, "a03779c86df3323075f5e796cb2ce5029f00ec8869eee3fdfb897afe36c6d002"),
  model("base", 147_951_465, "60ed5bc3dd14eea856493d334349b405782ddcaf0028d4b5df4088345fba2efe"),
  model("small.en", 487_614_201, "c6138d6d58ecc8322097e0f987c32f1be8bb0a18532a3f88f734d1bbf9c41e5d"),
  model("small", 487_601_967, "1be3a9b2063867b937e64e2ec7483364a79917e157fa98c5d94b5c1fffea987b"),
  model("medium.en", 1_533_774_781, "cc37e93478338ec7700281a7ac30a10128929eb8f427dda2e865faa8f6da4356"),
  model("medium", 1_533_763_059, "6c14d5adee5f86394037b4e4e8b59f1673b6cee10e3cf0b11bbdbee79c156208"),
  model("large-v3", 3_095_033_483, "64d182b440b98d5203c4f9bd541544d84c605196c4f7b845dfa11fb23594d1e2"),
  model("large-v3-turbo", 1_624_555_275, "1fc70f774d38eb169993ac391eea357ef47c88757ef72ee5943879b7e8e2bc69"),
];

/** The catalogue entry a WHISPER_MODEL value names, if it is a name rather than a path. */
export function whisperModelNamed(name: string, catalogue: readonly WhisperModel[] = whisperModels): WhisperModel | null {
  return catalogue.find((entry) => entry.name === name) ?? null;
}

/** Where pulled models are kept: beside the embedded stores, so a backup or a new machine's DATA_DIR has them too. */
export const whisperModelsFolder = (dataDir: string): string => join(resolve(dataDir), "models", "whisper");

/** The file a catalogue model is pulled to. */
export const whisperModelFile = (entry: WhisperModel, dataDir: string): string => join(whisperModelsFolder(dataDir), entry.file);

/**
 * WHISPER_MODEL as the engine loads it: a catalogue name (`base.en`) is the file `bun run admin model pull` keeps under
 * DATA_DIR; anything else is the path of a ggml file, as before names existed.
 */
export function whisperModelPath(value: string, dataDir: string): string {
  const entry = whisperModelNamed(value);
  return entry ? whisperModelFile(entry, dataDir) : value;
}

/** The URL a model is fetched from, under a base (Hugging Face's, or a mirror's) with or without a trailing slash. */
export const whisperModelUrl = (entry: WhisperModel, baseUrl: string | null): string =>
  `${(baseUrl ?? defaultWhisperModelsUrl).replace(/\/+$/, "")}/${entry.file}`;
