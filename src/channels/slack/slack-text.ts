// Slack's message text as the person typed it. Slack sends "<", ">" and "&" as
// &lt; &gt; &amp;, and people, channels and links as <@U123>, <#C123|general>,
// <https://…|label>; read raw, the README's own "/backtest … RSI(14) < 30"
// failed with 'found "&gt;"'. Entities are decoded last, so "&amp;lt;" stays "&lt;".
export function fromSlackText(text: string): string {
  return text
    .replace(/<([^<>]*)>/g, (_, inner: string) => {
      const [target, label] = inner.split('|', 2);
      if (target.startsWith('@')) return label ? `@${label}` : '';
      if (target.startsWith('#')) return `#${label ?? target.slice(1)}`;
      if (target.startsWith('!')) {
        const special = /^!(here|channel|everyone)\b/.exec(target);
        return special ? `@${special[1]}` : (label ?? '');
      }
      return label ?? target.replace(/^mailto:/, '');
    })
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ')
    .trim();
}

/** An agent-view thread's title: the question, cut to what Slack shows. */
export const threadTitle = (text: string) => (text.length <= 100 ? text : `${text.slice(0, 99)}…`);
