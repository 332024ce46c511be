/** An echo of client input in a message, cut to a readable length. */
export const clip = (s: string, max = 80) => (s.length > max ? `${s.slice(0, max)}…` : s);
