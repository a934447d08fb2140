/**
 * What a per-assistant approval rule will match, in words: a rule applies to the assistant whose name is
 * exactly the rule's (capitals count), as the assistant sends it when it connects (policyFor in the core).
 */
export const RULE_MATCHING_EXPLAINED =
  'A rule applies only to the assistant that connects with exactly this name (capitals count). Choose the name from the list of assistants that have connected.';

/** The connected names a typed name was probably meant for: those that contain it or that it contains, ignoring capitals. */
export function likelyMeant(typed: string, seen: readonly string[]): string[] {
  const t = typed.trim().toLowerCase();
  if (t === '') return [];
  return seen.filter((name) => {
    const n = name.toLowerCase();
    return n !== typed.trim() && (n.includes(t) || t.includes(n));
  });
}

/** Why a rule's name matches no assistant that has connected, or undefined when one has connected with it. */
export function unmatchedWarning(name: string, seen: readonly string[]): string | undefined {
  const typed = name.trim();
  if (typed === '' || seen.includes(typed)) return undefined;
  const meant = likelyMeant(typed, seen);
  const nobody = `No assistant has connected as “${typed}” since Sandpit started, so this rule applies to none of them.`;
  if (meant.length > 0) return `${nobody} Did you mean ${meant.map((m) => `“${m}”`).join(' or ')}?`;
  if (seen.length === 0) return `${nobody} Connect the assistant first to see the name it uses.`;
  return `${nobody} The assistants that have connected are called ${seen.map((m) => `“${m}”`).join(', ')}.`;
}
