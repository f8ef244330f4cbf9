/**
 * `text` as one word of a POSIX shell command line: as it is when plain, else in single quotes; one starting with
 * `-` gets `./` first, so a command does not read it as an option.
 */
export function shellWord(text: string): string {
  const word = text.startsWith('-') ? `./${text}` : text;
  return /^[\w./@%+=:,-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}
