/**
 * Groups voice prints (voice-print.ts) into speakers for diarization.ts: k-means for each k, the k whose clusters
 * are best separated (silhouette) wins, or one speaker when no split is clearly better.
 */

/** Deterministic pseudo-random numbers, so the same audio always gets the same speakers. */
function mulberry32(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const distance2 = (a: number[], b: number[]) => a.reduce((sum, x, i) => sum + (x - b[i]!) ** 2, 0);

function kmeans(points: number[][], k: number, seed: number): { labels: number[]; centroids: number[][]; inertia: number } {
  const random = mulberry32(seed);
  const centroids = [points[Math.floor(random() * points.length)]!];
  while (centroids.length < k) {
    const weights = points.map((p) => Math.min(...centroids.map((c) => distance2(p, c))));
    const total = weights.reduce((a, b) => a + b, 0);
    let pick = random() * total;
    let index = 0;
    while (index < points.length - 1 && pick > weights[index]!) pick -= weights[index++]!;
    centroids.push(points[index]!);
  }
  let labels = points.map(() => 0);
  for (let round = 0; round < 50; round++) {
    const next = points.map((p) => centroids.reduce((best, c, i) => (distance2(p, c) < distance2(p, centroids[best]!) ? i : best), 0));
    const moved = next.some((l, i) => l !== labels[i]);
    labels = next;
    for (let c = 0; c < k; c++) {
      const members = points.filter((_, i) => labels[i] === c);
      if (members.length > 0) centroids[c] = members[0]!.map((_, d) => members.reduce((s, m) => s + m[d]!, 0) / members.length);
    }
    if (!moved && round > 0) break;
  }
  const inertia = points.reduce((sum, p, i) => sum + distance2(p, centroids[labels[i]!]!), 0);
  return { labels, centroids, inertia };
}

/** Mean silhouette: how much closer each point is to its own cluster than to the next nearest. */
export function silhouette(points: number[][], labels: number[]): number {
  const k = Math.max(...labels) + 1;
  let total = 0;
  for (let i = 0; i < points.length; i++) {
    const sums = new Array<number>(k).fill(0);
    const counts = new Array<number>(k).fill(0);
    for (let j = 0; j < points.length; j++) {
      if (i === j) continue;
      sums[labels[j]!]! += Math.sqrt(distance2(points[i]!, points[j]!));
      counts[labels[j]!]!++;
    }
    const own = labels[i]!;
    if (counts[own] === 0) continue; // a cluster of one scores 0
    const a = sums[own]! / counts[own]!;
    const b = Math.min(...sums.map((s, c) => (c === own || counts[c] === 0 ? Infinity : s / counts[c]!)));
    total += (b - a) / Math.max(a, b);
  }
  return total / points.length;
}

export type ClusterOptions = { maxSpeakers: number; minSilhouette?: number };

/** Standardises each dimension (missing values become the mean); pitch weighs as much as three MFCC dimensions. */
function standardise(vectors: number[][]): number[][] {
  const dims = vectors[0]!.length;
  const columns = Array.from({ length: dims }, (_, d) => {
    const values = vectors.map((v) => v[d]!).filter(Number.isFinite);
    const mean = values.length ? values.reduce((a, b) => a + b, 0) / values.length : 0;
    const std = values.length ? Math.sqrt(values.reduce((s, x) => s + (x - mean) ** 2, 0) / values.length) : 0;
    return { mean, std: std > 1e-9 ? std : 1, weight: d === dims - 1 ? 3 : 1 };
  });
  return vectors.map((v) => v.map((x, d) => (Number.isFinite(x) ? (x - columns[d]!.mean) / columns[d]!.std : 0) * columns[d]!.weight));
}

/**
 * Speaker index of each voice print (0 = whoever speaks first). `fit` marks the prints long enough
 * to shape the clusters; the others take the nearest cluster.
 */
export function clusterSpeakers(vectors: number[][], fit: boolean[], options: ClusterOptions): number[] {
  const fitted = vectors.map((_, i) => i).filter((i) => fit[i]);
  if (fitted.length < 4) return vectors.map(() => 0);
  const points = standardise(vectors);
  const training = fitted.map((i) => points[i]!);
  let best = { score: options.minSilhouette ?? 0.3, centroids: [training[0]!] };
  for (let k = 2; k <= Math.min(options.maxSpeakers, training.length - 1); k++) {
    const run = [1, 2, 3].map((seed) => kmeans(training, k, seed * 7919 + k)).reduce((a, b) => (b.inertia < a.inertia ? b : a));
    if (new Set(run.labels).size < k) continue;
    const score = silhouette(training, run.labels);
    if (score > best.score) best = { score, centroids: run.centroids };
  }
  const raw = points.map((p) => best.centroids.reduce((nearest, c, i) => (distance2(p, c) < distance2(p, best.centroids[nearest]!) ? i : nearest), 0));
  // Number speakers in order of first appearance.
  const order = new Map<number, number>();
  return raw.map((label) => {
    if (!order.has(label)) order.set(label, order.size);
    return order.get(label)!;
  });
}
