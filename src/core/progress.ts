// The steps a question goes through, as its asker sees them on the placeholder
// (Slack's stream tasks, Teams' "on it" line, the playground's progress line):
// a closed vocabulary, so a new step is added here on purpose and every
// platform shows the same words.

/** One step of answering a question, in the words the asker reads. */
export type Step =
  // the SQL agent (agents/sql/nodes)
  | 'Reading the schema'
  | 'Writing the query'
  | `Rewriting the query (attempt ${number})`
  | 'Checking the query'
  | 'Running the query'
  | 'Writing the answer'
  // the backtest agent (agents/backtest/agent.ts)
  | 'Reading the strategy'
  | `Fetching bars of ${string}`
  | `Fetched ${number} of ${number} tickers`
  | 'Running the backtest';

/** Told each step as it begins. */
export type ProgressReporter = (step: Step) => void;
