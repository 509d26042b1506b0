"""Ingest as a user waits for it: `paperchat ingest` against the plain LangChain recipe on the same
papers, each as a whole process (imports, model load, embedding, writes), alternated.

    .venv/bin/python bench/ingest_vs_recipe.py [--papers N] [--rounds 2] [--env NAME=VALUE ...]

The recipe is what a user would otherwise write (`recipe` below, run in its own process):
RecursiveCharacterTextSplitter(1000, 200) over title + abstract, HuggingFaceEmbeddings over the
same bundled all-MiniLM-L6-v2 folder, `Chroma.from_documents` into a fresh directory. paperchat
runs `paperchat ingest` of the same records into a fresh data directory, with the settings it
ships with (plus any `--env`). Rounds alternate the two so that a load on the machine that comes
and goes hits both; the table gives each round and the best, papers per second, and paperchat's
speed as a multiple of the recipe's (issue 16: ≥ 2.0), and each side's peak RSS (issue 16: ≤ 1.5 GB). A backend exported once (rag/encoders.py) is
exported beforehand by an untimed 1-paper ingest, and its export copied into each fresh data
directory, as a user's later ingests find it (--cold-export: each run exports for itself). Data: the first N records of
../shared/data/iclr2026/papers.jsonl, written to a temporary file and deleted afterwards.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ICLR = ROOT.parent / "shared" / "data" / "iclr2026" / "papers.jsonl"

RECIPE = """
import json, sys
from langchain_chroma import Chroma
from langchain_core.documents import Document
from langchain_huggingface import HuggingFaceEmbeddings
from langchain_text_splitters import RecursiveCharacterTextSplitter
from rag.embeddings import resolve_model_dir

records = [json.loads(line) for line in open(sys.argv[1], encoding="utf-8")]
docs = [Document(page_content=f"{r['title']}\\n\\n{r['abstract']}", metadata={"id": r["id"]}) for r in records]
chunks = RecursiveCharacterTextSplitter(chunk_size=1000, chunk_overlap=200).split_documents(docs)
embeddings = HuggingFaceEmbeddings(model_name=str(resolve_model_dir()), model_kwargs={"device": "cpu", "local_files_only": True},
                                   encode_kwargs={"normalize_embeddings": True})
Chroma.from_documents(chunks, embeddings, persist_directory=sys.argv[2], collection_name="recipe")
print(len(chunks))
"""


def timed(command: list[str], env: dict[str, str]) -> tuple[float, str, float]:
    """Seconds, the last line printed, and the process's peak RSS in MB (its own rusage, from wait4)."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        started = time.perf_counter()
        process = subprocess.Popen(command, env=env, stdout=out, stderr=err, text=True)
        _, status, usage = os.wait4(process.pid, 0)
        seconds = time.perf_counter() - started
        process.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    if process.returncode not in (0, 1):  # 1: paperchat ingest reports skipped lines, none expected here
        raise SystemExit(f"{command[:3]} failed ({process.returncode}):\n{stderr[-2000:]}")
    return seconds, stdout.strip().splitlines()[-1] if stdout.strip() else "", usage.ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--papers", type=int, default=400)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--env", action="append", default=[], help="NAME=VALUE for the paperchat runs (e.g. PAPERCHAT_MULTILINGUAL=false)")
    parser.add_argument("--cold-export", action="store_true", help="let each paperchat run export the encoder itself (a first ingest)")
    parser.add_argument("--data-root", type=Path, default=ICLR.parents[1], help="the folder holding iclr2026/")
    args = parser.parse_args()
    lines = (args.data_root / "iclr2026" / "papers.jsonl").read_text(encoding="utf-8").splitlines()[: args.papers]
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "ANONYMIZED_TELEMETRY": "False", "PYTHONPATH": str(ROOT)}
    ours = {**env, **dict(item.split("=", 1) for item in args.env)}
    rows: list[tuple[int, float, float]] = []
    peak_mb: dict[str, float] = {"paperchat": 0.0, "recipe": 0.0}
    with tempfile.TemporaryDirectory(prefix="paperchat-vs-recipe-") as tmp:
        records = Path(tmp) / "papers.jsonl"
        records.write_text("\n".join(lines) + "\n", encoding="utf-8")
        script = Path(tmp) / "recipe.py"
        script.write_text(RECIPE, encoding="utf-8")
        warm = Path(tmp) / "warm"
        if not args.cold_export:
            one = Path(tmp) / "one.jsonl"
            one.write_text(lines[0] + "\n", encoding="utf-8")
            export_s, _, _ = timed([sys.executable, "-c", "from ui.serve import main; main()", "ingest", str(one)], {**ours, "PAPERCHAT_DATA_DIR": str(warm)})
        for round_number in range(1, args.rounds + 1):
            data = Path(tmp) / f"paperchat{round_number}"
            first, second = ("paperchat", "recipe") if round_number % 2 else ("recipe", "paperchat")
            seconds: dict[str, float] = {}
            for who in (first, second):
                if who == "paperchat":
                    if (warm / "encoders").is_dir():
                        shutil.copytree(warm / "encoders", data / "encoders")
                    command = [sys.executable, "-c", "from ui.serve import main; main()", "ingest", str(records)]
                    seconds[who], _, peak = timed(command, {**ours, "PAPERCHAT_DATA_DIR": str(data)})
                else:
                    seconds[who], _, peak = timed([sys.executable, str(script), str(records), str(Path(tmp) / f"recipe{round_number}")], env)
                peak_mb[who] = max(peak_mb[who], peak)
            rows.append((round_number, seconds["paperchat"], seconds["recipe"]))
    n = len(lines)
    print(f"{n} ICLR 2026 papers, each run a whole process; paperchat settings: {' '.join(args.env) or 'as shipped'}")
    if not args.cold_export:
        print(f"(untimed beforehand: a 1-paper ingest, exporting the encoder if the backend needs it, {export_s:.1f} s)")
    print()
    print("| round | paperchat s | recipe s | paperchat papers/s | recipe papers/s | paperchat / recipe speed |")
    print("|---|---:|---:|---:|---:|---:|")
    for number, ours_s, recipe_s in rows:
        print(f"| {number} | {ours_s:.1f} | {recipe_s:.1f} | {n / ours_s:.2f} | {n / recipe_s:.2f} | {recipe_s / ours_s:.2f} |")
    best_ours, best_recipe = min(r[1] for r in rows), min(r[2] for r in rows)
    print(f"| best | {best_ours:.1f} | {best_recipe:.1f} | {n / best_ours:.2f} | {n / best_recipe:.2f} | {best_recipe / best_ours:.2f} |")
    print(f"\npeak RSS of a whole process (MB, most of any round): paperchat {peak_mb['paperchat']:.0f}, recipe {peak_mb['recipe']:.0f}")
    print(json.dumps({"papers": n, "paperchat_s": best_ours, "recipe_s": best_recipe, "ratio": best_recipe / best_ours}), file=sys.stderr)


if __name__ == "__main__":
    main()
