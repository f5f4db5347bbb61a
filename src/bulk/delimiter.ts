/** Which character separates a CSV file's fields (Excel writes its region's list separator): the header decides, holding no decimals nor free text. */

/** `;` when the header holds one and no `,` outside quotes; a tab when it holds one and neither; else `,`. */
export function sniffDelimiter(header: string): string {
  let inQuotes = false;
  let semicolon = false;
  let tab = false;
  for (let i = 0; i < header.length; i++) {
    const ch = header[i];
    if (ch === '"') inQuotes = !inQuotes;
    else if (inQuotes) continue;
    else if (ch === ',') return ',';
    else if (ch === ';') semicolon = true;
    else if (ch === '\t') tab = true;
  }
  return semicolon ? ';' : tab ? '\t' : ',';
}
