// The follow-ups offered under an answer are questions the bot then answers:
// each one, clicked (the button carries its plan) or typed in the thread,
// gives a result whose "understood as" line changed as the button said, never
// a refusal or an error; clicked after other questions, it still edits the
// answer it sits under.
import { describe, expect, it } from 'vitest';
import { crimeDatabase } from '../helpers/crime-data.js';
import { testDesk } from '../helpers/desk.js';

const data = crimeDatabase(6_000);

const QUESTIONS = [
  'How many thefts were reported in 2019?',
  'Which blocks had the most burglaries?',
  'How many robberies were there each year?',
  'How many crimes happened in Austin?',
  'Which districts had the most narcotics cases in 2018?',
];

describe('suggested follow-ups', () => {
  it('every suggestion, asked in the thread, is answered (and changes what was understood)', async () => {
    const { desk } = testDesk(data.db);
    let offered = 0;
    for (const [i, question] of QUESTIONS.entries()) {
      const first = await desk.answer({ platform: 'cli', threadId: `f${i}`, text: question });
      expect(first.kind, question).toBe('result');
      if (first.kind !== 'result') continue;
      expect(first.followUps?.length, question).toBeGreaterThanOrEqual(1);
      for (const [j, followUp] of first.followUps!.entries()) {
        offered++;
        // each suggestion in a thread of its own that starts with the same question
        const thread = `f${i}-${j}`;
        await desk.answer({ platform: 'cli', threadId: thread, text: question });
        const typed = await desk.answer({ platform: 'cli', threadId: thread, text: followUp.label });
        expect(typed.kind, `${question} -> ${followUp.label}: ${JSON.stringify(typed).slice(0, 300)}`).toBe('result');
        if (typed.kind !== 'result') continue;
        expect(typed.understood, `${question} -> ${followUp.label}`).not.toEqual(first.understood);
        // the click, after an unrelated question in the same thread: the same answer as typed right under it
        await desk.answer({ platform: 'cli', threadId: thread, text: 'How many homicides were there in 2015?' });
        const clicked = await desk.answer({ platform: 'cli', threadId: thread, text: followUp.label, plan: followUp.plan });
        expect(clicked.kind === 'result' && clicked.understood, `${question} -> ${followUp.label} (clicked)`).toEqual(typed.understood);
        expect(clicked.kind === 'result' && clicked.table?.rows).toEqual(typed.table?.rows);
      }
    }
    expect(offered).toBeGreaterThanOrEqual(8);
  });
});
