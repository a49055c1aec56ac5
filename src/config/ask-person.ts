/**
 * `$askPerson` in the user's subagent-isolation.json: whether a background subagent's questions are shown to the
 * person (default true). Only the user file counts: it is the person's own choice whether to be asked, not a
 * project's. Pure: the caller passes the user layer.
 */
import type { ConfigLayer } from "./types.ts";

export const ASK_PERSON_KEY = "$askPerson";

export interface AskPersonSetting {
  askPerson: boolean;
  /** Set when the value was not true or false (it is then ignored). */
  warning?: string;
}

export function resolveAskPerson(user: Pick<ConfigLayer, "settings" | "filePath">): AskPersonSetting {
  const settings = user.settings;
  if (!settings || !Object.hasOwn(settings, ASK_PERSON_KEY)) return { askPerson: true };
  const value = settings[ASK_PERSON_KEY];
  if (typeof value === "boolean") return { askPerson: value };
  return { askPerson: true, warning: `pi-subagent-dispatch: ${user.filePath ?? "user subagent-isolation.json"}: "${ASK_PERSON_KEY}" must be true or false; ignored` };
}
