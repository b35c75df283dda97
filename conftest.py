"""Configurația comună a testelor:
- la final, verifică că rularea testelor (nbval execută notebook-urile) a lăsat `notebooks/` și
  `solutions/` neatinse, octet cu octet;
- după fiecare celulă executată de nbval, citește ce a tipărit celula și o face să pice dacă
  tipărește o concluzie care se contrazice singură („de 0,94 ori mai rapid”), un număr scris
  altfel decât cere cursul („2.63×”, „32 kernel-uri”, True/False) sau o valoare rătăcită
  (un `Out[]` cu text: celula se termină cu un apel care întoarce ceva);
- pentru toată rularea: compilatorul C++ cu cache (`tests/compilator_cu_cache.py`), un fir OpenMP pe
  proces și, pe Linux fără GPU, kernel-urile notebook-urilor pornite calde (`tests/nuclee_calde.py`)."""

import functools
import hashlib
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

RADACINA = Path(__file__).resolve().parent


def _compilatorul_cu_cache() -> str | None:
    """Pune `tests/compilator_cu_cache.py` în locul compilatorului C++ (`CXX`) pentru toată
    rularea: procesele de teste, kernel-urile notebook-urilor și procesele lor noi îl moștenesc.
    Sursele C++ identice se compilează o singură dată pe rulare (vezi descrierea scriptului).
    Întoarce dosarul cache-ului, dacă l-a creat procesul acesta (el îl șterge la sfârșit).
    `CURS_CACHE_COMPILATOR=0` îl oprește; un proces care îl moștenește deja nu face altul."""
    if os.environ.get("CURS_CACHE_COMPILATOR") == "0" or os.environ.get("CURS_CXX_CACHE"):
        return None
    dosar = tempfile.mkdtemp(prefix="teste_compilari_cpp_")
    adevarat = os.environ.get("CXX") or "g++"
    # Lansatorul poartă numele compilatorului adevărat: versiunile vechi ale lui Inductor
    # recunosc g++ după nume, nu după `--version`.
    lansator = Path(dosar) / Path(adevarat).name
    lansator.write_text(f'#!/bin/sh\nexec "{sys.executable}" -S "{RADACINA / "tests" / "compilator_cu_cache.py"}" "$@"\n')
    lansator.chmod(0o755)
    os.environ["CURS_CXX_ADEVARAT"] = adevarat
    os.environ["CURS_CXX_CACHE"] = str(Path(dosar) / "cache")
    os.environ["CXX"] = str(lansator)
    return dosar


def _un_fir_openmp_pe_proces() -> None:
    """Un singur fir OpenMP în fiecare proces al rulării (`OMP_NUM_THREADS=1`), dacă n-ai ales
    altul. Testele rulează în trei procese pe două nuclee, iar alături lor pornesc kernel-uri de
    notebook, ranguri și procese noi: fiecare ar porni câte un fir pe nucleu, iar firele OpenMP
    care așteaptă de lucru se învârt pe nucleu în loc să doarmă, deci ard timpul celorlalte
    procese. Măsurat pe două nuclee, toată rularea: 888 s → 682 s, timpul de procesor
    1 764 s → 1 352 s. Ce arată testele nu se schimbă: timpii profilului rapid oricum nu spun
    nimic, iar rangurile și profilul Colab își aleg singure firele. Capitolele deschise în
    JupyterLab și `make validare` nu trec pe aici."""
    os.environ.setdefault("OMP_NUM_THREADS", "1")


# Înaintea oricărui import al lui torch: Inductor citește `CXX` când își încarcă configurația,
# iar biblioteca OpenMP citește `OMP_NUM_THREADS` când se încarcă.
_DOSAR_COMPILARI_CPP = _compilatorul_cu_cache()
_un_fir_openmp_pe_proces()

# Pachetul cursului, importat primul: pe o mașină fără GPU pornește interpretorul Triton
# (TRITON_INTERPRET=1), ceea ce trebuie să se întâmple înainte ca vreun test să încarce triton.
import curs_compilare  # noqa: F401
from curs_compilare import cifre
from curs_compilare.cifre import probleme_de_format
from curs_compilare.concluzii import contradictii, text_iesiri


def _nucleele_calde() -> bool:
    """Kernel-urile notebook-urilor pornesc calde în rularea testelor: copii ale unui proces care a
    importat deja torch, Dynamo și Inductor (`tests/nuclee_calde.py`), nu interpretoare noi care le
    importă din nou (4–5 s de procesor pe kernel). Doar pe Linux, fără GPU (un proces cu CUDA nu
    se copiază), cu un fir OpenMP pe proces (serverul de copii nu are alte fire) și dacă
    `CURS_NUCLEE_CALDE` nu e `0` (și nu într-o copie a configurației fără dosarul `tests`, cum fac
    testele care pornesc o sesiune pytest separată). Întoarce dacă a pus lansatorul cald."""
    import torch

    modul_cald = RADACINA / "tests" / "nuclee_calde.py"
    if (os.environ.get("CURS_NUCLEE_CALDE") == "0" or not sys.platform.startswith("linux") or not modul_cald.is_file()
            or os.environ.get("OMP_NUM_THREADS") != "1" or torch.cuda.is_available()):
        return False
    import importlib.util

    from jupyter_client.provisioning import local_provisioner

    specificatie = importlib.util.spec_from_file_location("nuclee_calde", modul_cald)
    modul = importlib.util.module_from_spec(specificatie)
    sys.modules["nuclee_calde"] = modul
    specificatie.loader.exec_module(modul)
    local_provisioner.launch_kernel = functools.partial(modul.lanseaza, lansare_obisnuita=local_provisioner.launch_kernel)
    return True


NUCLEE_CALDE = _nucleele_calde()
DOSARE_PAZITE = ("notebooks", "solutions")


def _amprente() -> dict:
    amprente = {}
    for dosar in DOSARE_PAZITE:
        for cale in sorted((RADACINA / dosar).rglob("*")):
            if cale.is_file() and ".ipynb_checkpoints" not in cale.parts:
                amprente[cale.relative_to(RADACINA).as_posix()] = hashlib.sha256(cale.read_bytes()).hexdigest()
    return amprente


def pytest_sessionstart(session):
    session.config._amprente_initiale = _amprente()


def pytest_unconfigure(config):
    if _DOSAR_COMPILARI_CPP:
        shutil.rmtree(_DOSAR_COMPILARI_CPP, ignore_errors=True)


def pytest_sessionfinish(session, exitstatus):
    initiale = getattr(session.config, "_amprente_initiale", None)
    if initiale is None:
        return
    finale = _amprente()
    schimbate = sorted(k for k in set(initiale) | set(finale) if initiale.get(k) != finale.get(k))
    if schimbate:
        print("\nTestele au modificat fișiere din notebooks/ sau solutions/: " + ", ".join(schimbate))
        session.exitstatus = 1


#: Fișierele lungi (zeci de secunde în profilul rapid: procese noi, ranguri, compilări), în ordinea
#: duratei lor măsurate (`pytest --durations=0`, cache-ul lui Inductor gol, 2 nuclee), pornite primele:
#: procesele de teste (pytest-xdist, un fișier întreg într-un proces) nu mai rămân la sfârșit cu un
#: fișier lung în timp ce celelalte stau. Un fișier lipsă din listă doar pornește mai târziu.
FISIERE_LUNGI = (
    "notebooks/06_modelul_intreg.ipynb",
    "notebooks/08_antrenare_distribuita.ipynb",
    "notebooks/09_export_aotinductor.ipynb",
    "notebooks/05_reglare_automata_max_autotune.ipynb",
    "notebooks/11_generarea_textului.ipynb",
    "notebooks/10_flex_attention.ipynb",
    "tests/test_masurare_compilare.py",
    "tests/test_exercitii_cap08.py",
    "notebooks/04_cuda_graphs_reduce_overhead.ipynb",
    "tests/test_exercitii_cap09.py",
    "tests/test_exercitii_cap10.py",
    "tests/test_cap08_distribuit.py",
    "tests/test_exercitii_cap06.py",
    "notebooks/01_primul_torch_compile.ipynb",
    "tests/test_benchmark_capitolul08.py",
    "tests/test_grafuri_cuda_si_cache.py",
    "tests/test_exercitii_cap12.py",
    "notebooks/03_fuziunea_kernelurilor.ipynb",
    "tests/test_exercitii_cap07.py",
    "notebooks/02_dynamo_garzi_intreruperi_recompilari.ipynb",
    "tests/test_cap08_ranguri.py",
    "solutions/08_antrenare_distribuita_solutii.ipynb",
    "tests/test_cap09_export.py",
    "tests/test_verificare_rapida.py",
)


def pytest_collection_modifyitems(session, config, items):
    """Fișierele lungi întâi (`FISIERE_LUNGI`), apoi restul, în ordinea colectării. Ordinea testelor
    dintr-un fișier nu se schimbă (sortarea e stabilă)."""

    def loc(item):
        fisier = item.nodeid.split("::", 1)[0]
        return FISIERE_LUNGI.index(fisier) if fisier in FISIERE_LUNGI else len(FISIERE_LUNGI)

    items[:] = sorted(items, key=loc)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    rezultat = yield
    iesiri = getattr(item, "test_outputs", None)  # celulele executate de nbval
    if iesiri:
        text = text_iesiri(iesiri)
        contrazise = contradictii(text)
        if contrazise:
            raise AssertionError(
                "Celula tipărește o concluzie contrazisă de propriile cifre: "
                + "; ".join(f"„{c}”" for c in contrazise)
                + ". Scrie concluzia cu curs_compilare.concluzii.concluzie_accelerare."
            )
        probleme = probleme_de_format(text_iesiri(iesiri, doar_stdout=True))
        if probleme:
            raise AssertionError(
                "Celula tipărește numere în alt format decât cel al cursului: " + "; ".join(probleme)
                + ". Scrie-le cu funcțiile din curs_compilare.cifre (format_numar, cu_unitate, "
                "format_timp, cu_substantiv, da_nu)."
            )
        ratacite = [i for i in iesiri if i.get("output_type") == "execute_result" and set(i.get("data", {})) <= {"text/plain"}]
        # nbval execută celulele fără să le treacă în istoric, iar IPython decide după istoric dacă
        # „;” de la final ascunde valoarea; în Jupyter, o celulă terminată cu „;” nu are Out[].
        sursa = getattr(getattr(item, "cell", None), "source", "")
        if ratacite and not sursa.rstrip().endswith(";"):
            raise AssertionError(
                "Celula se termină cu o expresie a cărei valoare apare ca Out[]: "
                + ratacite[0]["data"].get("text/plain", "")[:80]
                + ". Pune „;” după ultimul apel sau atribuie-i rezultatul."
            )
    return rezultat


@pytest.fixture
def cifre_notate(monkeypatch, tmp_path):
    """Cifrele notate de `cifre.inregistreaza` cât ține testul: o funcție care întoarce lista lor
    (dicționare cu cheie, valoare, unitate, descriere...), în ordinea în care au fost notate."""
    fisier = tmp_path / "cifre.jsonl"
    monkeypatch.setenv(cifre.VARIABILA_FISIER, str(fisier))

    def citeste():
        if not fisier.exists():
            return []
        return [json.loads(rand) for rand in fisier.read_text(encoding="utf-8").splitlines()]

    return citeste


@pytest.fixture(autouse=True)
def _figurile_testului_inchise():
    """După fiecare test, figurile matplotlib rămase deschise se închid: altfel se adună în procesul
    de teste (pyplot le ține minte pe toate) și, de la 21 încolo, matplotlib avertizează la fiecare figură nouă."""
    yield
    pyplot = sys.modules.get("matplotlib.pyplot")
    if pyplot is not None:
        pyplot.close("all")
