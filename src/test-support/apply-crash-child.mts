// A core that applies every pending change of a review layer (argv: data folder, person's folder, layer),
// announcing itself on stdout first: the test kills it with SIGKILL in the middle of the apply.
import { ReviewLayers } from '../core/folders/review/review-layers';

const [dataFolder, person, layer] = process.argv.slice(2);
if (!dataFolder || !person || !layer) throw new Error('usage: apply-crash-child <data folder> <person folder> <layer>');
const layers = new ReviewLayers({ dataFolder, trash: undefined });
process.stdout.write('applying\n');
const outcomes = await layers.apply(layer, person, { all: true });
process.stdout.write(`done ${outcomes.filter((o) => o.done).length}\n`);
