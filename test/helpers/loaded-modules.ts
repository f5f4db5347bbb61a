// vi.mock(name, recorded(name)) notes that `name` was loaded, then hands back the real module.
// Taken inside vi.hoisted, since vi.mock's factories run before imports.
export function moduleRecorder() {
  const loaded = new Set<string>();
  const recorded = (name: string) => async (importOriginal: () => Promise<unknown>) => {
    loaded.add(name);
    return importOriginal();
  };
  return { loaded, recorded };
}
