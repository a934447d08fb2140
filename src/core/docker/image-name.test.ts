import { describe, expect, it } from 'vitest';
import { canonicalImageName } from './image-name';

describe('image names as engines report them', () => {
  it('are the same image whichever engine names it', () => {
    expect(canonicalImageName('localhost/sandpit/python:e6cf8b47403b')).toBe('sandpit/python:e6cf8b47403b');
    expect(canonicalImageName('sandpit/python:e6cf8b47403b')).toBe('sandpit/python:e6cf8b47403b');
    expect(canonicalImageName('docker.io/library/busybox')).toBe('busybox:latest');
    expect(canonicalImageName('busybox:latest')).toBe('busybox:latest');
    expect(canonicalImageName('registry.local:5000/team/img')).toBe('registry.local:5000/team/img:latest');
    expect(canonicalImageName('sandpit/python')).not.toBe(canonicalImageName('sandpit/node'));
  });
});
