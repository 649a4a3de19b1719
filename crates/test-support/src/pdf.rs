//! Writes small, valid PDF files by hand (header, objects, cross-reference table, trailer), so the reader is
//! tested on files it did not produce itself: desktop-host's document reader, and the window's attachments.

/// A PDF with one page per entry of `pages`; each page shows its lines in Helvetica. An empty page list entry
/// gives a page that only draws a rectangle (no text layer), as a scan would.
pub fn pdf_with_pages(pages: &[&[&str]]) -> Vec<u8> {
    let page_count = pages.len();
    // Objects: 1 catalog, 2 pages, 3 font, then per page: page object, content stream.
    let mut objects: Vec<String> = Vec::new();
    objects.push("<< /Type /Catalog /Pages 2 0 R >>".to_owned());
    let kids: Vec<String> = (0..page_count)
        .map(|idx| format!("{} 0 R", 4 + 2 * idx))
        .collect();
    objects.push(format!(
        "<< /Type /Pages /Kids [{}] /Count {page_count} >>",
        kids.join(" ")
    ));
    objects.push(
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"
            .to_owned(),
    );
    for (idx, lines) in pages.iter().enumerate() {
        let content_id = 5 + 2 * idx;
        objects.push(format!(
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> \
             /Contents {content_id} 0 R >>"
        ));
        let stream = if lines.is_empty() {
            "0.5 g 72 72 468 648 re f".to_owned()
        } else {
            let mut text = String::from("BT /F1 12 Tf 72 720 Td 14 TL");
            for line in *lines {
                text.push_str(&format!(" ({}) Tj T*", escape(line)));
            }
            text.push_str(" ET");
            text
        };
        objects.push(format!(
            "<< /Length {} >>\nstream\n{stream}\nendstream",
            stream.len()
        ));
    }
    let mut out = b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n".to_vec();
    let mut offsets = Vec::with_capacity(objects.len());
    for (idx, body) in objects.iter().enumerate() {
        offsets.push(out.len());
        out.extend_from_slice(format!("{} 0 obj\n{body}\nendobj\n", idx + 1).as_bytes());
    }
    let xref_offset = out.len();
    out.extend_from_slice(
        format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1).as_bytes(),
    );
    for offset in offsets {
        out.extend_from_slice(format!("{offset:010} 00000 n \n").as_bytes());
    }
    out.extend_from_slice(
        format!(
            "trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref_offset}\n%%EOF\n",
            objects.len() + 1
        )
        .as_bytes(),
    );
    out
}

fn escape(line: &str) -> String {
    line.replace('\\', "\\\\")
        .replace('(', "\\(")
        .replace(')', "\\)")
}
