"""Profilul Colab al validării: 2 nuclee moștenite de kernel, memoria RAM a notebook-ului măsurată
și limitată, durata celulei de pregătire, tabelul raportului."""

import os
import subprocess
import sys
import textwrap
import time

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook

from curs_compilare.instructor import validare
from curs_compilare.instructor.profil_colab import LIMITA_RAM_COLAB_GIB, NUCLEE_COLAB, MemorieGazda, ProfilColab

ARE_AFINITATE = hasattr(os, "sched_getaffinity")


def test_profilul_implicit_e_al_unui_runtime_colab_gratuit():
    profil = ProfilColab()
    assert (profil.nuclee, profil.gpu_simulat, profil.limita_ram_gib) == (NUCLEE_COLAB, "T4", LIMITA_RAM_COLAB_GIB) == (2, "T4", 12.0)
    variabile = profil.variabile()
    assert variabile["CURS_GPU_SIMULAT"] == "T4"
    assert variabile["OMP_NUM_THREADS"] == variabile["TORCHINDUCTOR_COMPILE_THREADS"] == "2"


@pytest.mark.skipif(not ARE_AFINITATE, reason="afinitatea procesorului există doar pe Linux")
def test_procesul_copil_mosteneste_nucleele_firele_si_procesele_de_compilare():
    """Ce contează e kernel-ul pornit în profil: un proces nou vede 1 nucleu, 1 fir PyTorch și
    1 proces de compilare Inductor; la ieșire, procesul curent își recapătă nucleele și mediul."""
    inainte_afinitate, inainte_mediu = os.sched_getaffinity(0), dict(os.environ)
    cod = textwrap.dedent("""
        import os, torch
        from torch._inductor import config
        print(len(os.sched_getaffinity(0)), torch.get_num_threads(), config.compile_threads, os.environ["CURS_GPU_SIMULAT"])
    """)
    with ProfilColab(nuclee=1).aplicat() as profil:
        assert len(profil.nuclee_alese) == 1
        iesire = subprocess.run([sys.executable, "-c", cod], capture_output=True, text=True, timeout=300, check=True)
    assert iesire.stdout.split() == ["1", "1", "1", "T4"]
    assert os.sched_getaffinity(0) == inainte_afinitate
    assert dict(os.environ) == inainte_mediu


def test_profilul_isi_pune_mediul_la_loc_si_dupa_o_exceptie(monkeypatch):
    monkeypatch.setenv("OMP_NUM_THREADS", "7")
    monkeypatch.delenv("CURS_GPU_SIMULAT", raising=False)
    with pytest.raises(RuntimeError):
        with ProfilColab().aplicat():
            assert os.environ["OMP_NUM_THREADS"] == "2"
            raise RuntimeError("intenționat")
    assert os.environ["OMP_NUM_THREADS"] == "7" and "CURS_GPU_SIMULAT" not in os.environ


def test_memoria_ram_numara_si_procesele_copil():
    """Un proces care pornește un copil cu 300 MiB ocupați: maximul le cuprinde pe amândouă."""
    pytest.importorskip("psutil")
    cod = textwrap.dedent("""
        import subprocess, sys, time
        copil = subprocess.Popen([sys.executable, "-c", "b = bytearray(300 * 2**20); import time; time.sleep(30)"])
        time.sleep(30)
    """)
    parinte = subprocess.Popen([sys.executable, "-c", cod])
    memorie = MemorieGazda()
    try:
        memorie.pid_kernel(parinte.pid)
        memorie.porneste()
        termen = time.monotonic() + 20
        while (memorie.maxim_mib or 0) < 300 and time.monotonic() < termen:
            time.sleep(0.2)
    finally:
        memorie.opreste()
        import psutil

        for p in [*psutil.Process(parinte.pid).children(recursive=True), psutil.Process(parinte.pid)]:
            p.kill()
        parinte.wait()
    assert memorie.maxim_mib >= 300
    assert MemorieGazda().masoara_acum() is None  # fără kernel, nimic de măsurat


def _notebook(tmp_path, *surse):
    cale = tmp_path / "nb.ipynb"
    nbformat.write(new_notebook(cells=[new_code_cell(s) for s in surse]), cale)
    return cale


def test_un_notebook_peste_limita_de_ram_e_esuat_cu_explicatie(tmp_path):
    cale = _notebook(tmp_path, "balast = bytearray(400 * 2**20)\nimport time; time.sleep(2)")
    r = validare.executa_notebook(cale, tmp_path / "executate", limita_celula=120, limita_ram_mib=256)
    assert not r["trecut"]
    assert r["memorie_ram_maxima_mib"] >= 400
    assert "peste limita de 0,25 GiB" in r["prima_linie_eroare"] and "Colab" in r["prima_linie_eroare"]
    r = validare.executa_notebook(cale, tmp_path / "executate", limita_celula=120, limita_ram_mib=4096)
    assert r["trecut"], r["eroare"]
    assert r.get("secunde_pregatire") is None  # fără celulă de pregătire


def test_durata_celulei_de_pregatire_din_timpii_nbclient(tmp_path):
    cale = _notebook(tmp_path, "# Pregătirea mediului\nimport time; time.sleep(1.2)", "x = 1")
    r = validare.executa_notebook(cale, tmp_path / "executate", limita_celula=120)
    assert r["trecut"] and 1.1 <= r["secunde_pregatire"] < 10
    nb = nbformat.read(tmp_path / "executate" / "nb.ipynb", as_version=4)
    del nb.cells[0].metadata["execution"]
    assert validare.durata_celulei_de_pregatire(nb) is None


def test_raportul_profilului_colab():
    notebookuri = [
        {"cale": "notebooks/00.ipynb", "trecut": True, "secunde": 30.0, "secunde_pregatire": 12.5,
         "memorie_gpu_maxima_mib": 2048, "memorie_ram_maxima_mib": 3072},
        {"cale": "notebooks/01.ipynb", "trecut": False, "secunde": 40.0, "memorie_ram_maxima_mib": 13 * 1024,
         "eroare": "peste limită"},
    ]
    mediu = {"gpu": "NVIDIA H200", "gpu_real": "NVIDIA H200", "gpu_simulat": "T4", "memorie_gpu_gib": 15.0,
             "capabilitate": "7.5", "numar_sm": 40, "python": "3.12", "torch": "2.11", "triton": "3.6",
             "profil": "gpu_mic", "nuclee": 16, "dispozitiv": "cuda",
             "profil_colab": {"nuclee": 2, "gpu_simulat": "T4", "limita_ram_gib": 12.0, "nuclee_alese": [0, 1]}}
    text = validare._raport_markdown({"data": "azi", "secunde_total": 70.0, "mediu": mediu,
                                      "notebookuri": notebookuri, "cifre": []})
    assert "**limită de jos** pentru un T4 adevărat" in text and "viteza lui NVIDIA H200" in text
    assert "| notebook | stare | durată | pregătirea | memoria GPU, maxim | memoria RAM, maxim |" in text
    assert "| `notebooks/00.ipynb` | trecut | 30 s | 12,5 s | 2,00 GiB | 3,00 GiB |" in text
    assert "| `notebooks/01.ipynb` | **EȘUAT** | 40 s | — | — | 13,00 GiB |" in text
    mediu["dispozitiv"] = "cpu"
    text = validare._raport_markdown({"data": "azi", "secunde_total": 70.0, "mediu": mediu,
                                      "notebookuri": notebookuri[:1], "cifre": []})
    assert "pe o mașină fără GPU" in text and "limită de jos" not in text
