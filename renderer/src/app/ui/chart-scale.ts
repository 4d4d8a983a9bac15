// The top of a chart's scale: round (1, 2 or 5 times a power of ten), at least the largest value,
// and never labelled as zero is: a flat line near 0 % reads "0.1 %" at the top, not "0.0 %" twice.

function niceMax(max: number): number {
  if (max <= 0) return 1;
  const power = 10 ** Math.floor(Math.log10(max));
  return [1, 2, 5, 10].map((m) => m * power).find((n) => n >= max) ?? max;
}

export function scaleTop(max: number, format: (v: number) => string): number {
  let top = niceMax(max);
  // Each step is ten times the last: a few at most before the label shows a digit.
  while (format(top) === format(0) && top < Number.MAX_SAFE_INTEGER) top = niceMax(top * 10);
  return top;
}
