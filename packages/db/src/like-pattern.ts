/** `%text%` for `$ilike`/`$like`: the text matched anywhere, its `%`, `_` and `\` matched literally. */
export function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
