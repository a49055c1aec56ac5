/** The system prompt with the roster block at its end, the existing content untouched in front. Pure. */
export function appendRoster(systemPrompt: string, block: string): string {
  const base = systemPrompt.trimEnd();
  // pi 1.x runs before_agent_start for every run, also those started by a steer message; should a host hand us a
  // prompt that already ends with this roster, it is not appended twice.
  if (base.endsWith(block.trimEnd())) return systemPrompt;
  return base === "" ? block : `${base}\n\n${block}`;
}
