/**
 * The seeder's progress where no terminal shows a bar (CI logs, a pipe): one line each time
 * another tenth of the records is in, and the last at 100%, so a log shows how far it got
 * without a line per batch.
 */
export function progressLines(total: number, write: (line: string) => void): (added: number) => void {
  let done = 0;
  let reported = 0;
  return (added) => {
    done += added;
    const tenths = total === 0 ? 10 : Math.floor((done * 10) / total);
    if (tenths <= reported) return;
    reported = tenths;
    write(`seeding: ${done}/${total} records (${Math.min(100, tenths * 10)}%)`);
  };
}
