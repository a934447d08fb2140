// Makes a copy layer of a folder as the user this process runs as (argv: data folder, person's folder), and
// prints the layer as JSON: the test runs it as a user other than root (Sandpit without root on Linux).
import { ReviewLayers } from '../core/folders/review/review-layers';

const [dataFolder, person] = process.argv.slice(2);
if (!dataFolder || !person) throw new Error('usage: review-copy-child <data folder> <person folder>');
const layers = new ReviewLayers({ dataFolder, trash: undefined, owner: undefined, setting: 'copy' });
process.stdout.write(`${JSON.stringify(await layers.create(person))}\n`);
