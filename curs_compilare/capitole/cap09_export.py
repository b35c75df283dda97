"""Uneltele capitolului 09 (modelul compilat iese din notebook): ce refuză `torch.export`, spus în
română, și programul C++ care încarcă un pachet AOTInductor (`.pt2`) fără Python.

- `incearca_exportul(model, argumente, strict=..., dynamic_shapes=...)` exportă și, dacă exportul
  e refuzat, spune de ce, pe categorii: o ramificare după valoarea unui tensor, un apel pe care
  Dynamo nu-l urmărește (doar la exportul strict), o dimensiune declarată dinamică pe care codul o
  fixează (constrângeri încălcate). Exportul cere graful întreg: ce ar fi la `torch.compile` o
  întrerupere a grafului e aici o eroare;

- `construieste_incarcatorul(dosar)` compilează `cap09_incarcator.cpp` (alături de acest modul) cu
  compilatorul C++ al sistemului, pe antetele și bibliotecile torch-ului instalat, cu standardul
  C++ cu care a fost construit torch-ul (`standard_cpp`: C++20 pentru torch 2.14, care refuză un
  standard mai vechi cu „C++20 or later compatible compiler is required”);
- `ruleaza_incarcatorul(executabil, pachet, intrare)` rulează programul într-un proces nou pe o
  intrare dată și întoarce ieșirea lui, ca tensor, plus ce a spus (dispozitivul, timpul unui apel);
- `scrie_tensor` / `citeste_tensor`: formatul binar prin care vorbesc Python și programul C++
  (numărul de dimensiuni, codul tipului și dimensiunile, int64, apoi valorile, float32 sau int64);
- `porniri_la_rece(configuratie, pachet, dosar)`: primul rezultat al aceluiași model în procese
  noi: compilat cu un cache gol, cu cache-ul cald, cu artefactele cache-ului, și pachetul
  AOTInductor încărcat;
- `ruleaza_pachetul_pe_forme(pachet, forme, ...)`: pachetul pe forme oarecare, într-un
  proces nou, cu sau fără verificarea intrărilor (`AOTI_RUNTIME_CHECK_INPUTS=1`): fără ea, o
  formă din afara contractului poate opri procesul.

Programul rulează cu `LD_LIBRARY_PATH` spre bibliotecile lui torch: biblioteca modelului din pachet
(un `.so` scris de Inductor) le încarcă la rândul ei, iar fără ele `dlopen` eșuează
(„libtorch.so: cannot open shared object file”).
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import shutil
import signal
import struct
import subprocess
import sys
import textwrap
import time
from dataclasses import dataclass
from pathlib import Path

import torch

__all__ = [
    "RezultatExport",
    "incearca_exportul",
    "categorie_refuz",
    "SURSA_INCARCATOR",
    "EroareCpp",
    "RulareCpp",
    "standard_cpp",
    "compilator_cpp",
    "comanda_de_compilare",
    "construieste_incarcatorul",
    "ruleaza_incarcatorul",
    "compara_cu_incarcarea_din_python",
    "scrie_tensor",
    "citeste_tensor",
    "PornireLaRece",
    "porneste_in_proces_nou",
    "porniri_la_rece",
    "ApelInProcesNou",
    "ruleaza_pachetul_pe_forme",
    "VARIABILA_ESEC_SIMULAT",
    "IncarcareInProcesNou",
    "incearca_incarcarea",
]

#: Sursa programului C++ (în pachetul cursului).
SURSA_INCARCATOR = Path(__file__).with_name("cap09_incarcator.cpp")


class EroareCpp(RuntimeError):
    """Construirea sau rularea programului C++ n-a reușit; mesajul spune de ce, în română, cu
    ultimele rânduri scrise de compilator sau de program."""


@dataclass
class RulareCpp:
    """Ce a întors programul C++: `iesire` (tensorul), `dispozitiv`, `timp_apel_s` (un apel al
    modelului, măsurat în C++), `secunde` (tot procesul: pornire, încărcarea pachetului, apelul)."""

    iesire: torch.Tensor
    dispozitiv: str
    timp_apel_s: float
    secunde: float


@dataclass
class RezultatExport:
    """Rezultatul lui `incearca_exportul`: `program` (un `ExportedProgram`) dacă a reușit, altfel
    `categorie` (vezi `categorie_refuz`), `explicatie` (în română) și `original` (primul rând al
    mesajului lui PyTorch, cu tipul excepției)."""

    program: object = None
    categorie: str | None = None
    explicatie: str | None = None
    original: str | None = None

    @property
    def reusit(self) -> bool:
        return self.program is not None


#: Categoriile refuzurilor: (textele care le recunosc în mesajul lui PyTorch, numele, explicația).
_CATEGORII = (
    (("Data-dependent branching", "Could not guard on data-dependent", "GuardOnDataDependentSymNode"),
     "ramificare după date",
     "codul alege o ramură după valoarea unui tensor (`if x.sum() > 0`); exportul nu știe valoarea. "
     "Scrie alegerea în graf, cu `torch.cond` (sau `torch.where`, dacă ambele ramuri se pot calcula)."),
    (("Constraints violated", "specialized it to be a constant"),
     "dimensiune fixată de cod",
     "ai declarat o dimensiune dinamică, dar codul o folosește ca pe o constantă (de exemplu, un `reshape` cu "
     "lotul scris de mână); exportul îți spune valoarea la care a fixat-o. Scrie codul fără constanta aceea "
     "sau declară dimensiunea statică."),
    (("marked as skipped", "does not know how to trace", "Unsupported"),
     "apel pe care Dynamo nu-l urmărește",
     "la exportul strict, Dynamo citește codul Python și se oprește la o funcție pe care n-o poate urmări (o "
     "bibliotecă C, de exemplu). Exportul nestrict (`strict=False`, implicit) rulează Python-ul obișnuit și "
     "trece; altfel, fă din apel o operație proprie (`torch.library.custom_op`, capitolul 07)."),
)


def categorie_refuz(eroare: BaseException) -> tuple[str, str]:
    """(categoria, explicația în română) pentru o excepție aruncată de `torch.export.export`."""
    text = f"{type(eroare).__name__}: {eroare}"
    for tipare, nume, explicatie in _CATEGORII:
        if any(tipar in text for tipar in tipare):
            return nume, explicatie
    return "altceva", "exportul a fost refuzat dintr-un motiv pe care capitolul nu-l tratează; citește mesajul original."


def incearca_exportul(model, argumente: tuple, *, strict: bool = False, dynamic_shapes=None) -> RezultatExport:
    """`torch.export.export(model, argumente, strict=strict, dynamic_shapes=dynamic_shapes)`; dacă
    exportul e refuzat, întoarce categoria și explicația, fără traceback."""
    import contextlib
    import io
    import logging
    import warnings

    # Un refuz scrie în stderr grafurile parțiale (un `print` al exportului) și avertismentele formelor
    # simbolice (jurnalele lui PyTorch), în engleză, zeci de rânduri: explicația de mai jos le ține
    # locul, cu primul rând al erorii originale.
    nivel_oprit = logging.root.manager.disable
    logging.disable(logging.CRITICAL)
    try:
        with warnings.catch_warnings(), contextlib.redirect_stderr(io.StringIO()):
            warnings.simplefilter("ignore")
            program = torch.export.export(model, tuple(argumente), strict=strict, dynamic_shapes=dynamic_shapes)
        return RezultatExport(program=program)
    except Exception as eroare:  # noqa: BLE001 — orice refuz devine o explicație
        categorie, explicatie = categorie_refuz(eroare)
        rand = next((r.strip() for r in str(eroare).splitlines() if r.strip()), "")
        return RezultatExport(categorie=categorie, explicatie=explicatie,
                              original=f"{type(eroare).__name__}: {rand[:200]}")
    finally:
        logging.disable(nivel_oprit)


def standard_cpp() -> str:
    """Standardul C++ cu care a fost construit torch-ul instalat („c++20” sau „c++17”), citit din
    `torch.__config__.show()` („C++ Version: 202002”)."""
    potrivire = re.search(r"C\+\+ Version:\s*(\d{4})", torch.__config__.show())
    an = int(potrivire.group(1)) if potrivire else 2017
    return "c++20" if an >= 2020 else "c++17"


def compilator_cpp() -> str | None:
    """Compilatorul C++: `$CXX`, altfel `g++` sau `c++` din PATH; None dacă nu există."""
    for nume in (os.environ.get("CXX"), "g++", "c++"):
        if nume and shutil.which(nume):
            return shutil.which(nume)
    return None


def _dosar_torch() -> Path:
    return Path(torch.__file__).resolve().parent


def comanda_de_compilare(sursa: Path, executabil: Path, compilator: str) -> list[str]:
    """Comanda care compilează `sursa` în `executabil`, pe antetele și bibliotecile lui torch."""
    torch_dir = _dosar_torch()
    biblioteci = ["-ltorch", "-ltorch_cpu", "-lc10"]
    if torch.cuda.is_available() and (torch_dir / "lib" / "libtorch_cuda.so").is_file():
        biblioteci += ["-ltorch_cuda", "-lc10_cuda"]
    abi = int(torch._C._GLIBCXX_USE_CXX11_ABI)
    return [
        compilator, f"-std={standard_cpp()}", "-O1", str(sursa), "-o", str(executabil),
        f"-D_GLIBCXX_USE_CXX11_ABI={abi}",
        f"-I{torch_dir / 'include'}", f"-I{torch_dir / 'include' / 'torch' / 'csrc' / 'api' / 'include'}",
        f"-L{torch_dir / 'lib'}", f"-Wl,-rpath,{torch_dir / 'lib'}", "-Wl,--no-as-needed", *biblioteci,
    ]


def construieste_incarcatorul(dosar: str | Path, sursa: str | Path = SURSA_INCARCATOR,
                              limita_s: float = 600.0) -> Path:
    """Compilează programul C++ în `dosar` și întoarce calea executabilului. Dacă executabilul
    există deja și e mai nou decât sursa, nu-l compilează din nou. Aruncă `EroareCpp` dacă nu
    există un compilator C++ sau dacă acesta se oprește cu o eroare."""
    dosar = Path(dosar)
    dosar.mkdir(parents=True, exist_ok=True)
    sursa = Path(sursa)
    executabil = dosar / sursa.stem
    if executabil.is_file() and executabil.stat().st_mtime >= sursa.stat().st_mtime:
        return executabil
    compilator = compilator_cpp()
    if compilator is None:
        raise EroareCpp("Nu găsesc un compilator C++ (g++ sau $CXX). Pe Debian/Ubuntu: `apt-get install g++`.")
    comanda = comanda_de_compilare(sursa, executabil, compilator)
    try:
        rezultat = subprocess.run(comanda, capture_output=True, text=True, timeout=limita_s)
    except subprocess.TimeoutExpired:
        raise EroareCpp(f"Compilarea programului C++ nu s-a terminat în {limita_s:.0f} s.") from None
    if rezultat.returncode != 0:
        erori = [r for r in rezultat.stderr.splitlines() if "error" in r][:5] or rezultat.stderr.splitlines()[-5:]
        raise EroareCpp("Compilatorul C++ s-a oprit cu o eroare:\n" + "\n".join(f"    {r[:300]}" for r in erori))
    return executabil


#: Tipurile de date pe care le înțeleg ambele părți, cu codul lor din fișier.
_TIPURI = {0: torch.float32, 1: torch.int64}
_CODURI = {tip: cod for cod, tip in _TIPURI.items()}


def scrie_tensor(cale: str | Path, tensor: torch.Tensor) -> None:
    """Scrie `tensor` (pe procesor) în formatul programului C++: numărul de dimensiuni, codul
    tipului (0: float32, 1: int64), dimensiunile, toate int64, apoi valorile. Un tensor întreg se
    scrie ca int64 (jetoanele unui model de limbaj), oricare altul ca float32."""
    t = tensor.detach().cpu()
    t = (t.to(torch.int64) if not t.is_floating_point() and not t.is_complex() else t.to(torch.float32)).contiguous()
    with open(cale, "wb") as f:
        f.write(struct.pack("<qq", t.dim(), _CODURI[t.dtype]))
        f.write(struct.pack(f"<{t.dim()}q", *t.shape))
        f.write(t.numpy().tobytes())


def citeste_tensor(cale: str | Path) -> torch.Tensor:
    """Citește un tensor scris în formatul programului C++."""
    date = Path(cale).read_bytes()
    dimensiuni, cod = struct.unpack_from("<qq", date, 0)
    if cod not in _TIPURI:
        raise ValueError(f"{cale}: codul de tip {cod} nu e cunoscut (0: float32, 1: int64)")
    tip = _TIPURI[cod]
    forma = struct.unpack_from(f"<{dimensiuni}q", date, 16)
    inceput = 16 + 8 * dimensiuni
    numar = 1
    for d in forma:
        numar *= d
    marime = torch.empty((), dtype=tip).element_size()
    if len(date) - inceput != marime * numar:
        raise ValueError(f"{cale}: forma {tuple(forma)} cere {marime * numar} octeți de valori, fișierul are {len(date) - inceput}")
    return torch.frombuffer(bytearray(date[inceput:]), dtype=tip).reshape(forma).clone()


def ruleaza_incarcatorul(executabil: str | Path, pachet: str | Path, intrare: torch.Tensor,
                         dosar: str | Path | None = None, limita_s: float = 120.0) -> RulareCpp:
    """Rulează programul C++ într-un proces nou: încarcă `pachet` și îl cheamă pe `intrare`.
    Întoarce ieșirea și ce a spus programul. Aruncă `EroareCpp` cu ultimele rânduri ale
    programului dacă acesta se oprește cu o eroare."""
    dosar = Path(dosar) if dosar is not None else Path(pachet).resolve().parent
    cale_intrare, cale_iesire = dosar / "intrare_cpp.bin", dosar / "iesire_cpp.bin"
    scrie_tensor(cale_intrare, intrare)
    cale_iesire.unlink(missing_ok=True)
    biblioteci = str(_dosar_torch() / "lib")
    mediu = {**os.environ, "LD_LIBRARY_PATH": os.pathsep.join(filter(None, [biblioteci, os.environ.get("LD_LIBRARY_PATH")]))}
    inceput = time.perf_counter()
    try:
        rezultat = subprocess.run([str(executabil), str(pachet), str(cale_intrare), str(cale_iesire)],
                                  capture_output=True, text=True, timeout=limita_s, env=mediu)
    except subprocess.TimeoutExpired:
        raise EroareCpp(f"Programul C++ n-a terminat în {limita_s:.0f} s.") from None
    secunde = time.perf_counter() - inceput
    if rezultat.returncode != 0 or not cale_iesire.is_file():
        ultimele = (rezultat.stderr or rezultat.stdout).strip().splitlines()[-4:]
        raise EroareCpp(f"Programul C++ s-a oprit cu codul {rezultat.returncode}:\n"
                        + "\n".join(f"    {r[:300]}" for r in ultimele))
    spuse = dict(r.split(" ", 1) for r in rezultat.stdout.strip().splitlines() if " " in r)
    return RulareCpp(
        iesire=citeste_tensor(cale_iesire),
        dispozitiv=spuse.get("dispozitiv", "?"),
        timp_apel_s=float(spuse.get("timp_apel_ms", "nan")) / 1e3,
        secunde=secunde,
    )



# ---------------------------------------------------------------------------------------------
# Încărcarea pachetului, întâi într-un proces nou: un pachet care oprește procesul nu oprește
# și kernel-ul notebook-ului
# ---------------------------------------------------------------------------------------------

#: Cu această variabilă de mediu nevidă, procesul care încearcă încărcarea se oprește singur cu
#: SIGSEGV înainte să încarce pachetul: calea capitolului de după o încărcare care omoară procesul,
#: văzută pe o mașină unde încărcarea merge (ca `CURS_FLEX_ESEC_SIMULAT` în capitolul 10).
VARIABILA_ESEC_SIMULAT = "CURS_AOTI_ESEC_SIMULAT"

_SCRIPT_INCARCARE = textwrap.dedent(
    """
    import faulthandler, json, os, signal, sys, time
    faulthandler.enable()  # la o oprire, stiva Python ajunge în stderr: arată unde a murit procesul
    cerere = json.loads(sys.argv[1])
    import torch
    if os.environ.get(cerere["variabila_simulare"], "").strip():
        os.kill(os.getpid(), signal.SIGSEGV)
    start = time.perf_counter()
    model = torch._inductor.aoti_load_package(cerere["pachet"])
    rezultat = {"incarcare_s": time.perf_counter() - start}
    if cerere["intrare"]:
        x = torch.load(cerere["intrare"]).to(cerere["dispozitiv"])
        with torch.no_grad():
            y = model(x)
        rezultat["forma_iesirii"] = list(y.shape)
    print("REZULTAT " + json.dumps(rezultat), flush=True)
    """
)


def _versiunea_compilatorului() -> str:
    compilator = compilator_cpp()
    if compilator is None:
        return "niciun compilator C++"
    try:
        rand = subprocess.run([compilator, "--version"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.TimeoutExpired):
        return Path(compilator).name
    return (rand.strip().splitlines() or [Path(compilator).name])[0]


def _unde_a_murit(stderr: str) -> str:
    """Ultimul cadru din stiva scrisă de `faulthandler` (cel mai adânc apel Python), ca
    „fișier, funcție”, sau „” dacă stiva lipsește."""
    for rand in stderr.splitlines():
        potrivire = re.match(r'\s*File "(.+)", line \d+ in (\S+)', rand)
        if potrivire:
            cale = potrivire.group(1)
            if cale == "<string>":  # scriptul procesului, nu biblioteca în care a murit
                continue
            scurt = cale[cale.index("torch/"):] if "torch/" in cale else Path(cale).name
            return f"{scurt}, în {potrivire.group(2)}"
    return ""


@dataclass(frozen=True)
class IncarcareInProcesNou:
    """Ce a făcut `aoti_load_package` într-un proces nou: `reusit`, `incarcare_s`, `forma_iesirii`
    (dacă a primit o intrare); altfel `cod_iesire` (negativ: oprit de un semnal, ca `-11`, SIGSEGV),
    `unde` (ultimul apel Python înainte de oprire), `ultimul_rand` și mașina (`versiuni`)."""

    reusit: bool
    versiuni: str
    incarcare_s: float | None = None
    forma_iesirii: tuple[int, ...] | None = None
    cod_iesire: int | None = None
    unde: str = ""
    ultimul_rand: str = ""
    simulat: bool = False

    @property
    def semnal(self) -> str | None:
        """Numele semnalului care a oprit procesul („SIGSEGV”), dacă a fost oprit de un semnal."""
        if self.cod_iesire is None or self.cod_iesire >= 0:
            return None
        try:
            return signal.Signals(-self.cod_iesire).name
        except ValueError:
            return f"semnalul {-self.cod_iesire}"

    def __str__(self) -> str:
        from ..cifre import format_timp

        if self.reusit:
            iesire = f"; un apel a dat o ieșire de forma {tuple(self.forma_iesirii)}" if self.forma_iesirii else ""
            return (f"Într-un proces nou, pachetul s-a încărcat în {format_timp(self.incarcare_s)}{iesire}. "
                    "Îl poți încărca și în kernel-ul notebook-ului.")
        if self.semnal:
            cum = f"s-a oprit de tot, cu semnalul {self.semnal} (codul {self.cod_iesire})"
        elif self.cod_iesire is None:
            cum = "n-a terminat în limita de timp"
        else:
            cum = f"s-a oprit cu o eroare (codul {self.cod_iesire})"
        unde = f" Ultimul apel Python înainte de oprire: {self.unde}." if self.unde else ""
        simulare = (f" (Oprire simulată, cu {VARIABILA_ESEC_SIMULAT}: pe mașina ta încărcarea poate merge.)"
                    if self.simulat else "")
        rand = f" Ultimul rând scris de proces: „{self.ultimul_rand}”." if self.ultimul_rand and not self.semnal else ""
        return (f"Procesul nou care a încercat să încarce pachetul cu `aoti_load_package` {cum}, pe {self.versiuni}."
                f"{unde}{rand}{simulare} Nu e o greșeală a ta: încărcarea rulează cod nativ în proces, iar unele combinații de "
                "versiuni (torch, compilatorul C++, bibliotecile sistemului) îl opresc. Dacă ai fi încărcat pachetul în "
                "kernel-ul notebook-ului, kernel-ul ar fi murit odată cu el. Capitolul merge mai departe fără pachetul "
                "încărcat în Python, cu ce nu cere încărcarea lui: programul exportat, compilarea pachetului, pornirile "
                "compilate și programul C++ (încercat separat, tot într-un proces nou).")


def incearca_incarcarea(pachet: str | Path, intrare: torch.Tensor | None = None, dispozitiv: str | None = None,
                        limita_s: float = 300.0) -> IncarcareInProcesNou:
    """Încarcă pachetul AOTInductor `pachet` într-un proces Python nou (și, cu `intrare`, îl cheamă o
    dată pe ea) și spune ce s-a întâmplat, fără să riște procesul curent: o încărcare care oprește
    procesul (un SIGSEGV în codul nativ) oprește doar procesul nou. `CURS_AOTI_ESEC_SIMULAT`
    simulează o astfel de oprire."""
    if dispozitiv is None:
        dispozitiv = "cuda" if torch.cuda.is_available() else "cpu"
    python = ".".join(map(str, sys.version_info[:3]))
    versiuni = f"torch {torch.__version__}, Python {python}, {_versiunea_compilatorului()}"
    simulat = bool(os.environ.get(VARIABILA_ESEC_SIMULAT, "").strip())
    cale_intrare = None
    if intrare is not None:
        cale_intrare = Path(pachet).resolve().with_suffix(".intrare.pt")
        torch.save(intrare.detach().cpu(), cale_intrare)
    cerere = {"pachet": str(pachet), "intrare": str(cale_intrare) if cale_intrare else None,
              "dispozitiv": dispozitiv, "variabila_simulare": VARIABILA_ESEC_SIMULAT}
    try:
        proces = subprocess.run([sys.executable, "-c", _SCRIPT_INCARCARE, json.dumps(cerere)],
                                env=_mediu_proces_nou(), capture_output=True, text=True, timeout=limita_s)
    except subprocess.TimeoutExpired:
        return IncarcareInProcesNou(False, versiuni, simulat=simulat)
    rand = next((r for r in proces.stdout.splitlines() if r.startswith("REZULTAT ")), None)
    if proces.returncode == 0 and rand is not None:
        date = json.loads(rand.removeprefix("REZULTAT "))
        forma = tuple(date["forma_iesirii"]) if "forma_iesirii" in date else None
        return IncarcareInProcesNou(True, versiuni, incarcare_s=date["incarcare_s"], forma_iesirii=forma)
    randuri = [r.strip() for r in (proces.stderr or proces.stdout).splitlines() if r.strip()]
    utile = [r for r in randuri if not r.startswith(("File ", "Fatal Python", "Current thread", "Thread 0x",
                                                      "Extension modules", "Stack (most recent"))]
    return IncarcareInProcesNou(False, versiuni, cod_iesire=proces.returncode, unde=_unde_a_murit(proces.stderr),
                                ultimul_rand=(utile[-1] if utile else "")[:300], simulat=simulat)


# ---------------------------------------------------------------------------------------------
# Pornirea la rece: primul rezultat al modelului într-un proces nou
# ---------------------------------------------------------------------------------------------

_SCRIPT_PORNIRE = textwrap.dedent(
    """
    import json, sys, time
    inceput_proces = time.perf_counter()
    import torch
    from curs_compilare.mediu import detecteaza_mediul
    from curs_compilare.modele import ConfiguratieTransformer, ReteaTransformer

    detecteaza_mediul()  # același GPU simulat ca notebook-ul (CURS_GPU_SIMULAT, moștenită)
    cerere = json.loads(sys.argv[1])
    dispozitiv = cerere["dispozitiv"]
    configuratie = ConfiguratieTransformer(**cerere["configuratie"])
    torch.manual_seed(0)
    x = torch.randint(0, configuratie.vocabular, (configuratie.marime_lot, configuratie.lungime), device=dispozitiv)
    rezultat = {"pregatire_s": time.perf_counter() - inceput_proces}

    def sincronizeaza():
        if dispozitiv == "cuda":
            torch.cuda.synchronize()

    with torch.no_grad():
        if cerere["fel"] == "aoti":
            # Modelul (greutățile și codul) vine întreg din pachet: nu se construiește în Python.
            start = time.perf_counter()
            model = torch._inductor.aoti_load_package(cerere["pachet"])
            rezultat["incarcare_s"] = time.perf_counter() - start
        else:
            model = ReteaTransformer(configuratie).to(dispozitiv).eval()
            start = time.perf_counter()
            if cerere["incarca"]:
                with open(cerere["incarca"], "rb") as f:
                    torch.compiler.load_cache_artifacts(f.read())
                rezultat["incarcare_s"] = time.perf_counter() - start
            model = torch.compile(model)
        y = model(x)
        sincronizeaza()
        rezultat["primul_rezultat_s"] = time.perf_counter() - start
        # câte fișiere C++ a compilat compilatorul sistemului pentru primul rezultat (pe procesor, câte unul
        # pe kernel); pe GPU, kernel-urile sunt Triton și numărul rămâne mic
        from torch._dynamo.utils import compilation_time_metrics
        rezultat["compilari_cpp"] = len(compilation_time_metrics.get("compile_file", []))
        start = time.perf_counter()
        model(x)
        sincronizeaza()
        rezultat["al_doilea_s"] = time.perf_counter() - start
    if cerere.get("salveaza"):
        artefacte = torch.compiler.save_cache_artifacts()
        if artefacte is not None:
            with open(cerere["salveaza"], "wb") as f:
                f.write(artefacte[0])
            rezultat["octeti_artefacte"] = len(artefacte[0])
    if cerere.get("iesire"):
        torch.save(y.float().cpu(), cerere["iesire"])
    rezultat["proces_s"] = time.perf_counter() - inceput_proces
    print("REZULTAT " + json.dumps(rezultat))
    """
)


def compara_cu_incarcarea_din_python(proba: IncarcareInProcesNou | None) -> None:
    """Secțiunea 7, după ce programul C++ a încărcat și a rulat pachetul: dacă încărcarea din Python
    (proba din secțiunea 4) a oprit procesul, spune ce înseamnă asta, din cele două rezultate ale mașinii
    tale. Altfel nu tipărește nimic."""
    if proba is None or proba.reusit:
        return
    if proba.simulat:
        print(f"Oprirea încărcării din Python, în secțiunea 4, a fost simulată (`{VARIABILA_ESEC_SIMULAT}`): programul C++ "
              "n-are cu ce să fie comparat.")
        return
    print("Același pachet, încărcat din C++, a mers, deși încărcarea lui din Python a oprit procesul (secțiunea 4): "
          "biblioteca compilată a pachetului e bună, oprirea vine din drumul de încărcare al lui Python "
          "(`aoti_load_package`). Pe mașina asta, pachetul se poate servi din C++.")


@dataclass(frozen=True)
class PornireLaRece:
    """Ce a măsurat un proces nou: `primul_rezultat_s`, de la modelul gata în memorie (sau, la
    pachet, de la nimic) până la prima ieșire, cu tot ce cere ea (compilarea, încărcarea
    artefactelor sau a pachetului); din el, `incarcare_s` (artefactele cache-ului sau pachetul;
    None la compilarea fără artefacte); `al_doilea_s`, al doilea apel; `pregatire_s`, importul lui
    torch și al cursului, în afara timpilor de mai sus; `proces_s`, tot procesul; `compilari_cpp`,
    câte fișiere C++ a compilat compilatorul sistemului până la primul rezultat."""

    primul_rezultat_s: float
    al_doilea_s: float
    pregatire_s: float
    proces_s: float
    incarcare_s: float | None = None
    octeti_artefacte: int | None = None
    compilari_cpp: int | None = None


def _radacina_pachetului() -> Path:
    return Path(__file__).resolve().parents[2]


def _mediu_proces_nou(**variabile: str) -> dict[str, str]:
    mediu = {**os.environ, **variabile}
    mediu["PYTHONPATH"] = os.pathsep.join(filter(None, [str(_radacina_pachetului()), mediu.get("PYTHONPATH")]))
    return mediu


def porneste_in_proces_nou(configuratie, fel: str, *, dosar_cache: str | Path | None = None,
                           pachet: str | Path | None = None, salveaza: str | Path | None = None,
                           incarca: str | Path | None = None, iesire: str | Path | None = None,
                           dispozitiv: str | None = None, limita_s: float = 900.0) -> PornireLaRece:
    """Pornește un proces Python nou care dă primul rezultat al unui `ReteaTransformer` cu
    `configuratie`, la inferență: `fel="jit"` îl compilează cu `torch.compile` (cache-ul lui
    Inductor în `dosar_cache`; cu `incarca`, încarcă întâi artefactele salvate ale cache-ului; cu
    `salveaza`, le salvează la sfârșit), `fel="aoti"` încarcă pachetul `pachet`. Cu `iesire`,
    procesul salvează acolo ieșirea (`torch.save`). Aruncă `RuntimeError` cu ultimele rânduri ale
    erorii dacă procesul eșuează."""
    if fel not in ("jit", "aoti"):
        raise ValueError(f"fel trebuie să fie „jit” sau „aoti”, nu {fel!r}")
    if dispozitiv is None:
        dispozitiv = "cuda" if torch.cuda.is_available() else "cpu"
    cerere = {"configuratie": dataclasses.asdict(configuratie), "fel": fel, "dispozitiv": dispozitiv,
              "pachet": str(pachet) if pachet else None, "salveaza": str(salveaza) if salveaza else None,
              "incarca": str(incarca) if incarca else None, "iesire": str(iesire) if iesire else None}
    variabile = {"TORCHINDUCTOR_CACHE_DIR": str(dosar_cache)} if dosar_cache else {}
    proces = subprocess.run([sys.executable, "-c", _SCRIPT_PORNIRE, json.dumps(cerere)],
                            env=_mediu_proces_nou(**variabile), capture_output=True, text=True, timeout=limita_s)
    rand = next((r for r in proces.stdout.splitlines() if r.startswith("REZULTAT ")), None)
    if proces.returncode != 0 or rand is None:
        coada = "\n".join((proces.stderr or proces.stdout).strip().splitlines()[-12:])
        raise RuntimeError(f"Procesul nou a eșuat (cod {proces.returncode}):\n{coada}")
    return PornireLaRece(**json.loads(rand.removeprefix("REZULTAT ")))


def porniri_la_rece(configuratie, pachet: str | Path | None, dosar: str | Path,
                    toate: bool | None = None) -> dict[str, PornireLaRece]:
    """Cele patru porniri ale aceluiași model, fiecare într-un proces nou, pe rând (a doua și a
    treia folosesc ce lasă prima): compilarea cu un cache gol (care își salvează artefactele),
    compilarea cu cache-ul cald (cel lăsat de prima), compilarea cu un cache gol și artefactele
    încărcate (mega-cache-ul capitolelor 05 și 06, unde torch-ul instalat le are) și încărcarea
    pachetului AOTInductor (fără ea, cu `pachet=None`: pe o mașină unde încărcarea oprește procesul).
    Cu `toate=False` (implicit în profilul rapid, al testelor: fiecare proces JIT costă o compilare
    întreagă), doar prima și ultima."""
    from ..mediu import profil_curent

    if toate is None:
        toate = profil_curent() != "rapid"
    dosar = Path(dosar)
    dosar.mkdir(parents=True, exist_ok=True)
    cald, gol = dosar / "cache_cald", dosar / "cache_gol_artefacte"
    artefacte = dosar / "artefacte.bin"
    are_artefacte = hasattr(torch.compiler, "save_cache_artifacts")
    porniri = {"JIT, cache gol": porneste_in_proces_nou(configuratie, "jit", dosar_cache=cald,
                                                        salveaza=artefacte if are_artefacte and toate else None)}
    if toate:
        porniri["JIT, cache cald"] = porneste_in_proces_nou(configuratie, "jit", dosar_cache=cald)
    if toate and are_artefacte and artefacte.is_file():
        porniri["JIT, artefacte"] = porneste_in_proces_nou(configuratie, "jit", dosar_cache=gol, incarca=artefacte)
    if pachet is not None:
        porniri["pachet AOTI"] = porneste_in_proces_nou(configuratie, "aoti", pachet=pachet)
    return porniri


# ---------------------------------------------------------------------------------------------
# Pachetul pe forme din afara contractului, într-un proces nou (o formă greșită îl poate opri)
# ---------------------------------------------------------------------------------------------

_SCRIPT_APEL = textwrap.dedent(
    """
    import json, sys
    import torch
    cerere = json.loads(sys.argv[1])
    model = torch._inductor.aoti_load_package(cerere["pachet"])
    for forma in cerere["forme"]:
        x = torch.randint(0, cerere["vocabular"], forma, device=cerere["dispozitiv"])
        try:
            with torch.no_grad():
                y = model(x)
            print("REZULTAT " + json.dumps({"forma_iesirii": list(y.shape)}), flush=True)
        except Exception as e:
            print("REZULTAT " + json.dumps({"eroare": str(e).strip().splitlines()[0][:300]}), flush=True)
    """
)


@dataclass(frozen=True)
class ApelInProcesNou:
    """Ce a făcut pachetul cu o intrare de forma `forma`, într-un proces nou: `forma_iesirii` dacă
    a rulat, `eroare` (mesajul) dacă a refuzat-o, sau `cod_iesire` (procesul oprit de tot, de
    exemplu `-6`, SIGABRT, „terminate called…”) cu `ultimul_rand` scris de proces."""

    forma: tuple[int, ...]
    forma_iesirii: tuple[int, ...] | None = None
    eroare: str | None = None
    cod_iesire: int | None = None
    ultimul_rand: str | None = None

    @property
    def ce_a_facut(self) -> str:
        if self.forma_iesirii is not None:
            return f"a rulat, ieșirea are forma {tuple(self.forma_iesirii)}"
        if self.eroare is not None:
            return f"a refuzat-o: {self.eroare}"
        return f"procesul s-a oprit de tot (cod {self.cod_iesire}): {self.ultimul_rand}"


def ruleaza_pachetul_pe_forme(pachet: str | Path, forme: list[tuple[int, ...]], vocabular: int, *,
                              verifica_intrarile: bool = False, dispozitiv: str | None = None,
                              limita_s: float = 120.0) -> list[ApelInProcesNou]:
    """Încarcă pachetul AOTInductor `pachet` într-un proces nou și îl cheamă, pe rând, pe jetoane
    aleatoare de fiecare formă din `forme`. Cu `verifica_intrarile=True`, procesul are
    `AOTI_RUNTIME_CHECK_INPUTS=1`: pachetul își verifică intrările față de formele cu care a fost
    exportat. Fără verificare, o formă din afara contractului poate rula fără niciun avertisment sau poate opri
    procesul (de aceea procesul e nou: kernel-ul notebook-ului ar muri cu el); formele rămase după
    o oprire se încearcă într-un proces nou."""
    if dispozitiv is None:
        dispozitiv = "cuda" if torch.cuda.is_available() else "cpu"
    mediu = _mediu_proces_nou(**({"AOTI_RUNTIME_CHECK_INPUTS": "1"} if verifica_intrarile else {}))
    if not verifica_intrarile:
        mediu.pop("AOTI_RUNTIME_CHECK_INPUTS", None)
    rezultate: list[ApelInProcesNou] = []
    while len(rezultate) < len(forme):
        ramase = [list(f) for f in forme[len(rezultate):]]
        cerere = {"pachet": str(pachet), "forme": ramase, "vocabular": int(vocabular), "dispozitiv": dispozitiv}
        try:
            proces = subprocess.run([sys.executable, "-c", _SCRIPT_APEL, json.dumps(cerere)], env=mediu,
                                    capture_output=True, text=True, timeout=limita_s)
        except subprocess.TimeoutExpired:
            rezultate += [ApelInProcesNou(forma=tuple(f), ultimul_rand=f"n-a terminat în {limita_s:g} s") for f in ramase]
            break
        for rand in (r for r in proces.stdout.splitlines() if r.startswith("REZULTAT ")):
            date = json.loads(rand.removeprefix("REZULTAT "))
            forma = tuple(forme[len(rezultate)])
            if "forma_iesirii" in date:
                rezultate.append(ApelInProcesNou(forma=forma, forma_iesirii=tuple(date["forma_iesirii"])))
            else:
                rezultate.append(ApelInProcesNou(forma=forma, eroare=date["eroare"]))
        if len(rezultate) < len(forme) and proces.returncode is not None:
            # Procesul s-a oprit la forma următoare: ea primește codul și ultimul rând semnificativ.
            randuri = [r for r in proces.stderr.splitlines() if r.strip() and not r.startswith(("frame #", "W1", "W0"))]
            semnificativ = next((r.strip() for r in randuri if "what()" in r), randuri[-1].strip() if randuri else "")
            rezultate.append(ApelInProcesNou(forma=tuple(forme[len(rezultate)]), cod_iesire=proces.returncode,
                                             ultimul_rand=semnificativ[:300]))
    return rezultate


# ---------------------------------------------------------------------------------------------
# Ce tipărește, ce desenează și ce înregistrează capitolul 09
# ---------------------------------------------------------------------------------------------


def arata_porniri(porniri: dict[str, PornireLaRece]) -> None:
    """Tabelul pornirilor la rece, raportul dintre compilarea cu cache gol și pachet, graficul (pe
    o scară logaritmică: timpii diferă cu ordine de mărime) și cifrele înregistrate."""
    from .. import cifre
    from ..grafice import arata

    print(f"{'pornirea':<18} {'primul rezultat':>16} {'din care încărcarea':>20} {'tot procesul':>13}")
    for nume, p in porniri.items():
        incarcare = cifre.format_timp(p.incarcare_s) if p.incarcare_s is not None else "—"
        print(f"{nume:<18} {cifre.format_timp(p.primul_rezultat_s):>16} {incarcare:>20} {cifre.format_timp(p.proces_s):>13}")
    rece, pachet = porniri["JIT, cache gol"], porniri.get("pachet AOTI")
    raport = rece.primul_rezultat_s / pachet.primul_rezultat_s if pachet else None
    if pachet:
        # „de 111 ori mai repede”; sub 1,5×, factorul cu zecimale („de 1,3× mai repede”), nu „de 1 dată”
        cat = (f"de {cifre.cu_substantiv(round(raport), 'dată', 'ori')} mai repede decât" if raport >= 1.5 else
               f"de {cifre.cu_unitate(raport, '×')} mai repede decât" if raport > 1 else "mai încet decât")
        print(f"\nPachetul dă primul rezultat {cat} "
              f"compilarea cu cache gol ({cifre.format_timp(pachet.primul_rezultat_s)} față de "
              f"{cifre.format_timp(rece.primul_rezultat_s)}).")
    else:
        print("\nPachetul lipsește din tabel: pe mașina asta încărcarea lui oprește procesul (vezi secțiunea 4), deci "
              "pornirea lui nu se poate măsura aici. Pornirile compilate de mai sus sunt măsurate.")
    if "JIT, cache cald" not in porniri:
        print("În profilul rapid (al testelor) rulează doar compilarea cu cache gol"
              + (" și pachetul" if pachet else "") + ": fiecare proces JIT costă o compilare întreagă.")
    if "JIT, artefacte" in porniri and "JIT, cache cald" in porniri:
        artefacte, cald = porniri["JIT, artefacte"], porniri["JIT, cache cald"]
        castig = 1 - artefacte.primul_rezultat_s / rece.primul_rezultat_s
        print(f"Artefactele cache-ului au scurtat compilarea cu {cifre.format_procent(castig)} "
              f"({cifre.format_timp(artefacte.primul_rezultat_s)}); cache-ul cald de pe disc, cu "
              f"{cifre.format_procent(1 - cald.primul_rezultat_s / rece.primul_rezultat_s)}.")
        if None not in (rece.compilari_cpp, cald.compilari_cpp, artefacte.compilari_cpp):
            compilari = (rece.compilari_cpp, cald.compilari_cpp, artefacte.compilari_cpp)
            if not any(compilari):
                print("Compilatorul C++ al sistemului n-a rulat la nicio pornire: pe GPU, kernelurile le compilează Triton, "
                      "nu compilatorul C++.")
            else:
                print("Rulările compilatorului C++ al sistemului până la primul rezultat: "
                      f"{compilari[0]} cu cache gol, {compilari[1]} cu cache cald, {compilari[2]} cu artefactele.")
            cifre.inregistreaza("09.pornire_jit_artefacte_compilari_cpp", artefacte.compilari_cpp, "",
                                "compilări C++ până la primul rezultat, cu artefactele cache-ului încărcate")
    cheie = {"JIT, cache gol": "jit_rece", "JIT, cache cald": "jit_cald", "JIT, artefacte": "jit_artefacte",
             "pachet AOTI": "aoti"}
    for nume, p in porniri.items():
        cifre.inregistreaza(f"09.pornire_{cheie[nume]}_s", p.primul_rezultat_s, "s",
                            f"primul rezultat într-un proces nou: {nume}", depinde_de_procesor=True)
    if raport is not None:
        cifre.inregistreaza("09.pornire_raport_jit_rece_aoti", raport, "×",
                            "primul rezultat: compilarea cu cache gol față de pachetul AOTI", depinde_de_procesor=True)
    arata(grafic_porniri(porniri))


def grafic_porniri(porniri: dict[str, PornireLaRece]):
    """Bare orizontale, pe scară logaritmică: primul rezultat al fiecărei porniri."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 2.8))
    nume = list(porniri)[::-1]
    valori = [porniri[n].primul_rezultat_s for n in nume]
    ax.barh(nume, valori, color=["#2a9d8f" if n == "pachet AOTI" else "#e76f51" for n in nume])
    ax.set_xscale("log")
    ax.set_xlabel("primul rezultat într-un proces nou (s, scară logaritmică)")
    ax.set_title("Pornirea la rece: compilat la prima cerere sau adus gata compilat")
    return fig


def arata_contractul(pachet: str | Path, forme: list[tuple[int, ...]], vocabular: int,
                     incarcare: IncarcareInProcesNou | None = None) -> list[tuple]:
    """Pachetul pe fiecare formă din `forme`, în procese noi, fără și cu verificarea intrărilor;
    tipărește ce a făcut și întoarce rândurile (forma, fără, cu). Cele două procese pornesc
    deodată (aici nu se măsoară timpi). Cu `incarcare` (rezultatul lui `incearca_incarcarea`) nereușită,
    spune de ce nu încearcă nimic și întoarce []."""
    from concurrent.futures import ThreadPoolExecutor

    if incarcare is not None and not incarcare.reusit:
        print("Pe mașina asta, orice proces care încarcă pachetul se oprește la încărcare (vezi mai sus), deci "
              "contractul formelor nu se poate încerca aici: fiecare formă ar opri procesul înainte de apel, iar "
              "oprirea n-ar spune nimic despre formă. Ce ar fi arătat celula e descris mai jos.")
        return []

    with ThreadPoolExecutor(max_workers=2) as bazin:
        fara, cu = bazin.map(lambda verifica: ruleaza_pachetul_pe_forme(pachet, forme, vocabular, verifica_intrarile=verifica),
                             (False, True))
    randuri = []
    for forma, f, c in zip(forme, fara, cu):
        randuri.append((forma, f, c))
        print(f"forma {tuple(forma)}:")
        print(f"    fără verificare: {f.ce_a_facut}")
        print(f"    cu AOTI_RUNTIME_CHECK_INPUTS=1: {c.ce_a_facut}")
    optiuni = getattr(torch._inductor.config, "aot_inductor", None)
    if hasattr(optiuni, "check_lowerbound"):
        print(f"Marginea de jos a verificării o decide torch._inductor.config.aot_inductor.check_lowerbound, aici "
              f"{'activă' if optiuni.check_lowerbound else 'oprită'} ({optiuni.check_lowerbound}) la compilarea pachetului.")
    else:
        print(f"torch {torch.__version__.split('+')[0]} n-are opțiunea aot_inductor.check_lowerbound: marginea de jos "
              "a verificării e mereu cea a exportului.")
    return randuri


def exploreaza_formele(program, vocabular: int, loturi=(1, 2, 8, 32, 64, 65, 128), lungimi=None):
    """Un explorator: alegi lotul și lungimea și vezi dacă programul exportat (`program.module()`,
    care își verifică intrările în Python) le primește sau ce spune când le refuză."""
    from ..explorator import Control, exploreaza

    modul = program.module()
    exemplu = next(iter(program.example_inputs[0]))
    lungimi = list(lungimi or sorted({2, exemplu.shape[1] // 2, exemplu.shape[1], exemplu.shape[1] + 1}))

    def actualizeaza(lot, lungime):
        x = torch.randint(0, vocabular, (lot, lungime), device=exemplu.device)
        try:
            with torch.no_grad():
                y = modul(x)
            print(f"lot {lot}, lungime {lungime}: primită, ieșirea are forma {tuple(y.shape)}")
        except Exception as e:  # noqa: BLE001 — refuzul e chiar lecția
            rand = next((r.strip() for r in str(e).splitlines() if r.strip()), "")
            print(f"lot {lot}, lungime {lungime}: refuzată — {type(e).__name__}: {rand[:200]}")

    return exploreaza(actualizeaza, lot=Control("lotul", list(loturi), implicit=8),
                      lungime=Control("lungimea", lungimi, implicit=exemplu.shape[1]))


def arata_regim(regim) -> None:
    """Timpul unui apel pentru fiecare variantă (tabel și grafic) și verdictul pachetului față de
    `torch.compile`, dat de rapoartele rundelor (în zgomot, mai rapid, mai lent);
    raportul se înregistrează."""
    from .. import cifre
    from ..grafice import arata, grafic_variante

    print(regim)
    arata(grafic_variante(dict(regim.items()), titlu="Un apel al modelului, după încălzire").figure)
    if "pachet AOTI" not in dict(regim.items()):
        print("Pachetul AOTI lipsește din comparație: pe mașina asta încărcarea lui oprește procesul (secțiunea 4).")
        return
    raport = regim.accelerare("torch.compile", "pachet AOTI")
    if raport.in_zgomot:
        verdict = f"la fel de rapid ca torch.compile: diferența e în zgomotul măsurării ({raport.interval()})."
    elif raport.mai_rapid:
        verdict = f"de {cifre.cu_unitate(raport.mediana, '×')} mai rapid decât torch.compile ({raport.interval()})."
    else:
        # intervalul e al raportului torch.compile / pachet, ca mediana scrisă lângă el; abia apoi inversul
        verdict = (f"mai lent decât torch.compile: {cifre.cu_unitate(raport.mediana, '×')} ({raport.interval()}), "
                   f"adică un apel durează de {cifre.cu_unitate(1 / raport.mediana, '×')} mai mult.")
    print(f"Pachetul AOTI e {verdict}")
    valoare, interval, procesor = raport.cifra_pentru_raport()
    cifre.inregistreaza("09.regim_compile_fata_de_aoti", valoare, "×",
                        "un apel: timpul lui torch.compile împărțit la al pachetului AOTI", interval=interval,
                        depinde_de_procesor=procesor)


def maximul_dimensiunii(program, dimensiune: int, intrare: int = 0) -> int | None:
    """Cea mai mare valoare permisă de programul exportat pentru dimensiunea `dimensiune` a intrării
    `intrare` (numărată printre intrările tale, fără parametri): dimensiunea însăși, dacă e statică;
    capătul de sus al intervalului ei (`range_constraints`), dacă e dinamică; None dacă intervalul n-are capăt (∞)."""
    nume = program.graph_signature.user_inputs[intrare]
    nod = next(n for n in program.graph.nodes if n.op == "placeholder" and n.name == nume)
    marime = nod.meta["val"].shape[dimensiune]
    if not isinstance(marime, torch.SymInt):
        return int(marime)
    interval = program.range_constraints.get(marime.node.expr)
    if interval is None:
        return None
    try:
        return int(interval.upper)
    except (TypeError, ValueError, OverflowError, AttributeError):  # ∞ (int_oo) nu e un întreg
        return None
