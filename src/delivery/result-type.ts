/** The customType of `[subagent-result]` messages (one place, so delivery and tasks agree without a cycle). */
export const RESULT_CUSTOM_TYPE_NAME = "subagent-result";
