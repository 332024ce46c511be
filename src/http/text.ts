/** An echo of client input in a message, cut to a readable length. */
export const clip = (s: string, max = 80) => (s.length > max ? `${s.slice(0, max)}…` : s);

/** UTF-8 length of a string without encoding it. */
export function utf8Length(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x800)
      n += c >= 0xd800 && c <= 0xdbff ? 1 : 2; // a surrogate pair: 4 bytes over 2 units
    else if (c >= 0x80) n += 1;
  }
  return n;
}
