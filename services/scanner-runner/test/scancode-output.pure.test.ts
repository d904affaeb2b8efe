import { describe, expect, it } from "@jest/globals";
import { scannedFilesOf } from "../src/domain/scancode/file-detections.ts";

// Lines as scancode-toolkit 32.5.0 writes them with --license --json-lines --strip-root (trimmed to the fields read).
const HEADER = '{"headers":[{"tool_name":"scancode-toolkit","tool_version":"32.5.0","errors":[]}]}';
const TOP_DETECTIONS = '{"license_detections":[{"identifier":"mit-1","license_expression":"mit","detection_count":1}]}';
const DIRECTORY = '{"files":[{"path":"src","type":"directory","license_detections":[],"scan_errors":[]}]}';
const FILE = JSON.stringify({
  files: [
    {
      path: "src/a.ts",
      type: "file",
      detected_license_expression_spdx: "Apache-2.0 AND MIT",
      license_detections: [
        {
          license_expression: "apache-2.0",
          license_expression_spdx: "Apache-2.0",
          matches: [
            {
              license_expression: "apache-2.0",
              license_expression_spdx: "Apache-2.0",
              start_line: 1,
              end_line: 1,
              matcher: "1-spdx-id",
              score: 100.0,
              rule_identifier: "spdx-license-identifier-apache_2_0-5dcda840",
            },
          ],
        },
        {
          license_expression: "mit",
          license_expression_spdx: "MIT",
          matches: [
            {
              license_expression: "mit",
              license_expression_spdx: "MIT",
              start_line: 7,
              end_line: 9,
              matcher: "3-seq",
              score: 87.5,
              rule_identifier: "mit_30.RULE",
            },
            { license_expression: "unknown", start_line: 12, end_line: 12, matcher: "5-undetected", score: 400 },
          ],
        },
      ],
      scan_errors: [],
    },
  ],
});
const FAILED =
  '{"files":[{"path":"big.bin","type":"file","license_detections":[],"scan_errors":["ERROR: for scanner: licenses: Processing interrupted: timeout after 120 seconds."]}]}';

describe("scancode's JSON-lines output", () => {
  it("answers no files for the header and the top-level detections, and skips directories", () => {
    expect(scannedFilesOf(HEADER)).toEqual([]);
    expect(scannedFilesOf(TOP_DETECTIONS)).toEqual([]);
    expect(scannedFilesOf(DIRECTORY)).toEqual([]);
  });

  it("keeps every match of every detection with its SPDX expression, score, lines, matcher and rule", () => {
    expect(scannedFilesOf(FILE)).toEqual([
      {
        path: "src/a.ts",
        failed: false,
        matches: [
          {
            license: "Apache-2.0",
            score: 100,
            startLine: 1,
            endLine: 1,
            matcher: "1-spdx-id",
            rule: "spdx-license-identifier-apache_2_0-5dcda840",
          },
          { license: "MIT", score: 87.5, startLine: 7, endLine: 9, matcher: "3-seq", rule: "mit_30.RULE" },
          // No SPDX expression: scancode's own key; a score out of range is clamped.
          { license: "unknown", score: 100, startLine: 12, endLine: 12, matcher: "5-undetected", rule: "" },
        ],
      },
    ]);
  });

  it("marks a file scancode erred on, so its result is not cached", () => {
    expect(scannedFilesOf(FAILED)).toEqual([{ path: "big.bin", failed: true, matches: [] }]);
  });
});
