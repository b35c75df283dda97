"""Compilatorul cu cache al testelor (`tests/compilator_cu_cache.py`): o sursă identică, cu
aceleași argumente, se compilează o singură dată; orice altceva ajunge la compilatorul adevărat.
Compilatorul adevărat e aici un script care numără chemările și scrie în ieșire sursa primită."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parent / "compilator_cu_cache.py"


@pytest.fixture
def compilator(tmp_path):
    jurnal = tmp_path / "chemari.txt"
    fals = tmp_path / "compilator_fals"
    fals.write_text(
        "#!/bin/sh\n"
        f'echo "$*" >> "{jurnal}"\n'
        'sursa=""; iesire=""; urm=0\n'
        'for a in "$@"; do if [ $urm = 1 ]; then iesire=$a; urm=0; fi; [ "$a" = "-o" ] && urm=1;'
        ' case "$a" in *.cpp) sursa=$a;; esac; done\n'
        'if grep -q EROARE "$sursa" 2>/dev/null; then exit 3; fi\n'
        '[ -n "$iesire" ] && { cat "$sursa" > "$iesire" 2>/dev/null || echo legat > "$iesire"; }\n'
        "exit 0\n"
    )
    fals.chmod(0o755)
    mediu = {**os.environ, "CURS_CXX_ADEVARAT": str(fals), "CURS_CXX_CACHE": str(tmp_path / "cache")}

    def ruleaza(*argumente):
        cod = subprocess.run([sys.executable, str(SCRIPT), *map(str, argumente)], env=mediu).returncode
        chemari = jurnal.read_text().splitlines() if jurnal.exists() else []
        return cod, len(chemari)

    return ruleaza


def test_aceeasi_sursa_in_alt_dosar_se_compileaza_o_data(compilator, tmp_path):
    for dosar in ("a", "b"):
        (tmp_path / dosar).mkdir()
        (tmp_path / dosar / "k.cpp").write_text("int kernel() { return 1; }")
    assert compilator(tmp_path / "a" / "k.cpp", "-O3", "-o", tmp_path / "a" / "k.so") == (0, 1)
    # alt dosar (alt cache gol al lui Inductor), aceeași sursă și aceleași argumente: din cache
    assert compilator(tmp_path / "b" / "k.cpp", "-O3", "-o", tmp_path / "b" / "k.so") == (0, 1)
    assert (tmp_path / "b" / "k.so").read_text() == "int kernel() { return 1; }"


def test_alta_sursa_sau_alte_argumente_se_compileaza_din_nou(compilator, tmp_path):
    sursa = tmp_path / "k.cpp"
    sursa.write_text("int kernel() { return 1; }")
    assert compilator(sursa, "-O3", "-o", tmp_path / "k.so") == (0, 1)
    assert compilator(sursa, "-O1", "-o", tmp_path / "k.so") == (0, 2)
    sursa.write_text("int kernel() { return 2; }")
    assert compilator(sursa, "-O3", "-o", tmp_path / "k.so") == (0, 3)
    assert (tmp_path / "k.so").read_text() == "int kernel() { return 2; }"


def test_antetul_dat_cu_include_intra_in_cheie(compilator, tmp_path):
    """Inductor dă antetul precompilat cu `-include`: același antet, din cache; alt conținut, compilat din nou."""
    sursa, antet = tmp_path / "k.cpp", tmp_path / "prefix.h"
    sursa.write_text("int k;")
    antet.write_text("#define A 1")
    assert compilator(sursa, "-include", antet, "-o", tmp_path / "k.so") == (0, 1)
    assert compilator(sursa, "-include", antet, "-o", tmp_path / "k.so") == (0, 1)
    antet.write_text("#define A 2")
    assert compilator(sursa, "-include", antet, "-o", tmp_path / "k.so") == (0, 2)


def test_ce_nu_e_o_singura_sursa_trece_direct(compilator, tmp_path):
    assert compilator("--version") == (0, 1)
    assert compilator("--version") == (0, 2)
    sursa, obiect = tmp_path / "k.cpp", tmp_path / "alt.o"
    sursa.write_text("int k;")
    obiect.write_text("obiect")
    # legarea cu alt fișier de intrare: de fiecare dată la compilator
    assert compilator(sursa, obiect, "-o", tmp_path / "k.so") == (0, 3)
    assert compilator(sursa, obiect, "-o", tmp_path / "k.so") == (0, 4)


def test_o_compilare_esuata_nu_intra_in_cache(compilator, tmp_path):
    sursa = tmp_path / "k.cpp"
    sursa.write_text("EROARE")
    assert compilator(sursa, "-o", tmp_path / "k.so") == (3, 1)
    assert compilator(sursa, "-o", tmp_path / "k.so") == (3, 2)
    assert not (tmp_path / "cache").exists() or not any((tmp_path / "cache").iterdir())


def test_rularea_testelor_foloseste_compilatorul_cu_cache():
    """conftest.py l-a pus în CXX înaintea lui torch; Inductor îl vede (dacă nu e oprit)."""
    if os.environ.get("CURS_CACHE_COMPILATOR") == "0":
        pytest.skip("cache-ul compilatorului e oprit (CURS_CACHE_COMPILATOR=0)")
    import torch._inductor.config as config

    assert os.environ["CXX"].endswith(Path(os.environ["CURS_CXX_ADEVARAT"]).name)
    assert config.cpp.cxx[1] == os.environ["CXX"]
    continut = Path(os.environ["CXX"]).read_text()
    assert str(SCRIPT) in continut


def test_rularea_testelor_are_un_fir_openmp_pe_proces():
    """conftest.py a pus `OMP_NUM_THREADS` înaintea lui torch: procesul testelor și un proces nou
    (ca un kernel sau un rang) pornesc cu atâtea fire (unul, dacă nu l-ai ales tu)."""
    import torch

    fire = int(os.environ["OMP_NUM_THREADS"])
    assert torch.get_num_threads() == fire
    copil = subprocess.run([sys.executable, "-c", "import torch; print(torch.get_num_threads())"],
                           capture_output=True, text=True, check=True)
    assert int(copil.stdout) == fire
