// Type-checked by `tsc --strict --noEmit` in contract/check.sh, against the
// types openapi-typescript generates from docs/openapi.yaml (gen/svc.d.ts).
// gen/captured.ts assigns real answers of svc to those types; this file uses
// them as a client would, and shows what the types refuse.
import type { components } from "./gen/svc";
import { problem, productEnrich, proofCustom, proofDefault, searchEnrich } from "./gen/captured";

type Schemas = components["schemas"];

// The counts under names that do not depend on the windows.
function counts(p: Schemas["Proof"]): [number, number] {
  return [p.views, p.purchases];
}
counts(proofDefault);
counts(proofCustom);

// The default window's names are declared, optional.
const lastHour: number | undefined = proofDefault.views_last_60_min;

// A misspelt field is not a number.
// @ts-expect-error: viewz is no count
const typo: number = proofDefault.viewz;

// brand_id is a string, not a count.
// @ts-expect-error: a number is not a brand_id
const wrong: Schemas["Proof"] = { ...proofDefault, brand_id: 1 };

// The problem's type keeps its fragment: it is a plain string.
const code: string = problem.type.split("#")[1] ?? "";

// Nullable counts and enumerations.
const first = searchEnrich.results[0];
const viewers: number | null = first?.social_proof?.viewers ?? null;
const language: "en" | "de" | "fr" | "es" = searchEnrich.language;
const verdict: Schemas["PriceInsight"]["verdict"] | undefined = productEnrich.price?.verdict;
const kinds: Schemas["MessageKind"][] = productEnrich.messages.map((m) => m.kind);

// @ts-expect-error: not a language of the service
const klingon: Schemas["Language"] = "tlh";

export { code, first, kinds, language, lastHour, typo, verdict, viewers, wrong, klingon };
