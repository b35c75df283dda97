"""Pornirea rangurilor din capitolul 08: o funcție scrisă într-o celulă rulează în N procese,
ca sub `torchrun`, iar notebook-ul primește înapoi ce a întors fiecare rang.

De ce e nevoie de o unealtă. Antrenarea pe mai multe GPU-uri rulează câte un proces pe GPU
(un **rang**, *rank*); procesele vorbesc între ele prin `torch.distributed` (gloo pe procesor, NCCL pe
GPU-uri). Un notebook e însă un singur proces. Rangurile nu sunt copii ale notebook-ului: `fork`
i-ar copia și starea CUDA, care nu se poate folosi într-un proces copil. Pornesc ca interpretoare
Python noi (ca metoda `spawn` a lui `multiprocessing`) sau, pe procesor, ca copii ale unui proces
ajutor curat (mai jos). Un proces nou nu vede ce ai definit în notebook: o funcție
se trimite de obicei prin referință (după modul și nume), iar modulul unei celule e `__main__`-ul kernel-ului
Jupyter, pe care alt proces nu-l poate importa. De aceea `ruleaza_pe_ranguri` trimite funcția
**prin valoare**, cu `cloudpickle` (codul ei, plus funcțiile, clasele și valorile din notebook pe
care le folosește), iar fiecare rang pornește cu `python -m curs_compilare.capitole.cap08_ranguri`,
un modul importabil al cursului, care o primește. Așa merge la fel dintr-un notebook, dintr-un
script (fără `if __name__ == "__main__":`, de care `multiprocessing` ar avea nevoie) și din teste.

Pe Linux, pe o mașină fără GPU CUDA, rangurile nu mai plătesc importurile la fiecare pornire:
prima pornire lansează, tot cu `python -m curs_compilare.capitole.cap08_ranguri`, un **proces ajutor** care
importă o dată torch, `torch.distributed`, Dynamo și Inductor, apoi nu face nimic altceva decât să
aștepte cereri. Fiecare rang e o copie a lui (`os.fork`), cu importurile deja făcute; copia își
ia mediul, dosarul curent și `sys.path` de la notebook în clipa pornirii. Fără GPU nu există stare
CUDA de copiat, iar ajutorul nu pornește fire de execuție, deci copierea e sigură. Ajutorul se
oprește odată cu procesul care l-a pornit, iar când mediul (`os.environ`) s-a schimbat de la
pornirea lui, e înlocuit cu unul nou. Pe GPU-uri, și dacă ajutorul nu pornește, rangurile pornesc
ca interpretoare noi. `CURS_RANGURI_FARA_AJUTOR=1` îl oprește.

Ce face `ruleaza_pe_ranguri(functie, *argumente, ranguri=2)`:

- pornește `ranguri` procese, fiecare cu `torch.distributed` inițializat (NCCL, câte
  un GPU pe rang, când mașina are cel puțin atâtea GPU-uri; altfel gloo, pe procesor), apoi
  cheamă `functie(*argumente)` în fiecare; rangul și numărul lor le afli, ca sub `torchrun`, cu
  `dist.get_rank()` și `dist.get_world_size()`;
- întoarce lista valorilor, în ordinea rangurilor (tensorii, aduși pe procesor), și arată ce a
  tipărit fiecare rang, cu „[rangul N]” în față (altfel, textul ar ajunge în terminalul din care
  a pornit Jupyter, nu în notebook);
- nu se blochează niciodată: un rang care aruncă o excepție, care se oprește singur sau care nu
  termină în `limita_s` secunde oprește tot, iar `EroareRanguri` spune, în română, ce s-a
  întâmplat cu fiecare rang. Un rang rămas să aștepte o operație colectivă (de exemplu un
  `all_reduce`) la care un rang oprit nu mai vine e oprit după `gratie_s` secunde.
"""

from __future__ import annotations

import atexit
import contextlib
import datetime as dt
import importlib
import io
import json
import os
import pickle
import select
import signal
import socket
import subprocess
import sys
import tempfile
import time
import traceback
import types
from dataclasses import dataclass
from pathlib import Path

__all__ = ["EroareRanguri", "StareRang", "alege_backend", "in_rangurile_pornite", "rangurile_deja_pornite",
           "ruleaza_pe_ranguri"]


@dataclass
class StareRang:
    """Ce s-a întâmplat cu un rang: `fel` e „gata” (a întors `valoare`), „eroare” (a aruncat
    `exceptie`, cu `mesaj` și `traceback`), „oprit” (procesul s-a terminat fără rezultat, cu
    `cod_iesire`), „blocat” (n-a terminat în limită și a fost oprit) sau „așteptare” (a fost oprit
    după ce alt rang eșuase). `iesire` e textul tipărit de rang."""

    rang: int
    fel: str
    valoare: object = None
    exceptie: str | None = None
    mesaj: str | None = None
    traceback: str | None = None
    cod_iesire: int | None = None
    secunde: float = 0.0
    iesire: str = ""

    def in_romana(self) -> str:
        """O propoziție despre rang."""
        if self.fel == "gata":
            return f"rangul {self.rang} a terminat în {self.secunde:.1f} s"
        if self.fel == "eroare":
            mesaj = (self.mesaj or "").strip().splitlines()
            return f"rangul {self.rang} a aruncat {self.exceptie}" + (f": {mesaj[0][:300]}" if mesaj else "")
        if self.fel == "oprit":
            return (f"rangul {self.rang} s-a oprit fără să întoarcă ceva (codul de ieșire {self.cod_iesire}: "
                    "procesul a fost închis sau a căzut, de exemplu din lipsă de memorie)")
        if self.fel == "blocat":
            return (f"rangul {self.rang} n-a terminat în {self.secunde:.0f} s și l-am oprit (de obicei, un rang "
                    "așteaptă o operație colectivă, ca all_reduce sau barrier, la care alt rang nu ajunge)")
        return (f"rangul {self.rang} aștepta încă după ce alt rang eșuase (probabil o operație colectivă "
                "la care rangul oprit nu mai vine) și l-am oprit")


class EroareRanguri(RuntimeError):
    """Cel puțin un rang n-a terminat bine; `stari` spune ce a făcut fiecare (`StareRang`)."""

    def __init__(self, stari: list[StareRang]):
        self.stari = stari
        rele = [s for s in stari if s.fel != "gata"]
        randuri = [f"Rularea pe {len(stari)} ranguri n-a reușit:"] + [f"  - {s.in_romana()}" for s in stari]
        cu_traceback = next((s for s in rele if s.fel == "eroare" and s.traceback), None)
        if cu_traceback is not None:
            ultimele = [r for r in cu_traceback.traceback.strip().splitlines() if r.strip()][-4:]
            randuri.append(f"Unde, în rangul {cu_traceback.rang} (ultimele rânduri):")
            randuri += [f"    {r}" for r in ultimele]
        oprit = next((s for s in rele if s.fel == "oprit" and s.iesire.strip()), None)
        if oprit is not None:
            ultimele = [r for r in oprit.iesire.strip().splitlines() if r.strip()][-3:]
            randuri.append(f"Ultimele rânduri tipărite de rangul {oprit.rang}:")
            randuri += [f"    {r[:300]}" for r in ultimele]
        super().__init__("\n".join(randuri))


def alege_backend(ranguri: int) -> str:
    """„nccl” când mașina are cel puțin `ranguri` GPU-uri NVIDIA (câte unul pe rang), altfel
    „gloo”, pe procesor: pe un singur GPU, două ranguri NCCL ar împărți același GPU, ceea ce
    NCCL nu acceptă, așa că drumul cu mai multe procese rulează pe procesor."""
    import torch
    import torch.distributed as dist

    if torch.cuda.is_available() and torch.cuda.device_count() >= ranguri and dist.is_nccl_available():
        return "nccl"
    return "gloo"


def _serializeaza(obiect) -> bytes:
    """`cloudpickle.dumps`, plus modulele-obiect ale lui PyTorch trimise după nume. Configurațiile
    (`torch._dynamo.config`, `torch._inductor.config`) sunt instanțe ale unei subclase a lui
    `ModuleType`, pe care cloudpickle n-o recunoaște ca modul: o funcție care scrie
    `torch._dynamo.config.patch(...)` n-ar putea fi trimisă. Un modul din `sys.modules` se
    importă din nou în rang, cu același nume."""
    import cloudpickle

    class _Impachetator(cloudpickle.Pickler):
        def reducer_override(self, obj):
            if (isinstance(obj, types.ModuleType) and type(obj) is not types.ModuleType
                    and sys.modules.get(getattr(obj, "__name__", None)) is obj):
                return importlib.import_module, (obj.__name__,)
            return super().reducer_override(obj)

    tampon = io.BytesIO()
    _Impachetator(tampon).dump(obiect)
    return tampon.getvalue()


def _port_liber() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _pe_procesor(valoare):
    """Valoarea, cu tensorii aduși pe procesor (părintele nu trebuie să atingă GPU-ul rangului)."""
    import torch

    if isinstance(valoare, torch.Tensor):
        return valoare.detach().cpu()
    if isinstance(valoare, dict):
        return {k: _pe_procesor(v) for k, v in valoare.items()}
    if isinstance(valoare, (list, tuple)) and type(valoare) in (list, tuple):
        return type(valoare)(_pe_procesor(v) for v in valoare)
    return valoare


def _scrie_atomic(cale: Path, date: bytes) -> None:
    temporar = cale.with_suffix(".tmp")
    temporar.write_bytes(date)
    os.replace(temporar, cale)


def _lucrator(rang: int, lume: int, adresa: str, backend: str, dosar: str, limita_s: float, fire: int) -> None:
    """Corpul unui rang (rulează în procesul nou; ieșirea lui merge deja în fișierul rangului):
    `torch.distributed` inițializat, funcția primită prin valoare, rezultatul scris pe disc."""
    dosar = Path(dosar)
    rezultat = dosar / f"rezultat_{rang}.pkl"
    try:
        import cloudpickle
        import torch
        import torch.distributed as dist

        torch.set_num_threads(fire)
        if backend == "nccl":
            torch.cuda.set_device(rang)
        dist.init_process_group(backend, init_method=adresa, rank=rang, world_size=lume,
                                timeout=dt.timedelta(seconds=max(limita_s, 10)))
        try:
            # Toate rangurile își termină legăturile înainte ca vreunul să meargă mai departe: fără
            # această barieră, un rang rapid putea termina și închide conexiunile cât timp altul
            # încă le deschidea („Gloo connectFullMesh failed … Connection closed by peer”).
            if backend == "nccl":
                dist.barrier(device_ids=[rang])
            else:
                dist.barrier()
            functie, argumente = cloudpickle.loads((dosar / "functie.pkl").read_bytes())
            valoare = functie(*argumente)
            date = _serializeaza(("gata", _pe_procesor(valoare)))
        finally:
            if dist.is_initialized():
                dist.destroy_process_group()
        _scrie_atomic(rezultat, date)
    except BaseException as e:  # noqa: BLE001 — orice eroare a rangului ajunge în notebook
        try:
            date = pickle.dumps(("eroare", type(e).__name__, str(e), traceback.format_exc()))
        except Exception:  # noqa: BLE001
            date = pickle.dumps(("eroare", type(e).__name__, repr(e), ""))
        _scrie_atomic(rezultat, date)
    finally:
        sys.stdout.flush()
        sys.stderr.flush()


def _citeste_rezultatul(cale: Path):
    import cloudpickle

    try:
        return cloudpickle.loads(cale.read_bytes())
    except Exception as e:  # noqa: BLE001
        return ("eroare", "EroareLaCitire", f"rezultatul rangului nu s-a putut citi: {e}", "")


#: Variabila de mediu care oprește procesul ajutor (rangurile pornesc atunci ca interpretoare noi).
VARIABILA_FARA_AJUTOR = "CURS_RANGURI_FARA_AJUTOR"
#: Ce importă ajutorul o dată, ca rangurile copiate din el să nu le mai importe.
_IMPORTURI_AJUTOR = ("cloudpickle", "torch", "torch.distributed", "torch._dynamo", "torch._inductor.compile_fx",
                     "curs_compilare.capitole.cap08_distribuit")
#: Variabile de mediu care se schimbă fără să conteze pentru ajutor: pytest o schimbă pe prima la
#: fiecare test, iar a doua o primește ajutorul din `sys.path` (rangurile o primesc la pornire).
_MEDIU_NEIMPORTANT = ("PYTEST_CURRENT_TEST", "PYTHONPATH")
#: Cât așteaptă notebook-ul răspunsul ajutorului (prima cerere așteaptă și importurile lui).
_ASTEPTARE_AJUTOR_S = 120.0


#: Codul de ieșire al unui rang copiat din ajutor, când ajutorul s-a oprit înaintea lui.
COD_NECUNOSCUT = -1


def _exista_procesul(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _caile_notebookului() -> list[str]:
    """`sys.path` al acestui proces, cu intrarea goală (dosarul curent) scrisă ca dosar."""
    return [c or os.getcwd() for c in sys.path]


class _RangDinAjutor:
    """Un rang copiat din procesul ajutor, cu metodele lui `subprocess.Popen` de care are nevoie
    `ruleaza_pe_ranguri`. Nu e copilul notebook-ului, ci al ajutorului, care îl culege când se
    termină și îi scrie codul de ieșire în `fisier_cod`."""

    def __init__(self, pid: int, fisier_cod: Path, ajutor: "_Ajutor"):
        self.pid = pid
        self._fisier_cod = fisier_cod
        self._ajutor = ajutor
        self.returncode = None

    def _codul_scris(self) -> int | None:
        try:
            text = self._fisier_cod.read_text().strip()
        except OSError:
            return None
        return int(text) if text else None

    def poll(self):
        if self.returncode is None:
            self.returncode = self._codul_scris()
            if self.returncode is None and not self._ajutor.viu() and not _exista_procesul(self.pid):
                # Ajutorul s-a oprit înaintea rangului, deci nimeni nu-i mai scrie codul de ieșire.
                # (Cât ajutorul trăiește, un rang cules, dar cu codul încă nescris, nu e încă terminat.)
                cod = self._codul_scris()
                self.returncode = COD_NECUNOSCUT if cod is None else cod
        return self.returncode

    def kill(self):
        if self.poll() is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(self.pid, signal.SIGKILL)

    def wait(self, timeout=None):
        termen = None if timeout is None else time.monotonic() + timeout
        while self.poll() is None:
            if termen is not None and time.monotonic() > termen:
                raise subprocess.TimeoutExpired(f"rangul {self.pid}", timeout)
            time.sleep(0.02)
        return self.returncode


class _Ajutor:
    """Procesul ajutor, văzut din notebook: îl pornește, îi trimite cereri (câte un rând JSON) și îi
    citește răspunsurile (pid-ul rangului copiat)."""

    def __init__(self, mediu: dict):
        self.mediu = mediu
        # Ca rangurile pornite drept interpretoare noi, ajutorul vede căile notebook-ului.
        cai = os.pathsep.join(dict.fromkeys(_caile_notebookului()))
        self.proces = subprocess.Popen(
            [sys.executable, "-u", "-m", __name__, "--ajutor"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, env={**mediu, "PYTHONPATH": cai}, start_new_session=True)

    def viu(self) -> bool:
        return self.proces.poll() is None

    def porneste(self, argumente: list[str], iesire: Path, fisier_cod: Path, mediu: dict) -> _RangDinAjutor:
        """Un rang nou, copiat din ajutor, cu `mediu` drept `os.environ`."""
        cerere = {"argumente": argumente, "iesire": str(iesire), "cod": str(fisier_cod), "mediu": mediu,
                  "dosar_curent": os.getcwd(), "cai": _caile_notebookului()}
        self.proces.stdin.write((json.dumps(cerere) + "\n").encode())
        self.proces.stdin.flush()
        gata, _, _ = select.select([self.proces.stdout], [], [], _ASTEPTARE_AJUTOR_S)
        rand = self.proces.stdout.readline() if gata else b""
        if not rand:
            raise RuntimeError("procesul ajutor nu a răspuns")
        return _RangDinAjutor(int(json.loads(rand)["pid"]), fisier_cod, self)

    def opreste(self) -> None:
        with contextlib.suppress(Exception):
            self.proces.stdin.close()  # ajutorul își oprește rangurile rămase și iese
        with contextlib.suppress(Exception):
            self.proces.wait(timeout=5)
        if self.proces.poll() is None:
            self.proces.kill()
            self.proces.wait()
        with contextlib.suppress(Exception):
            self.proces.stdout.close()


_AJUTOR: _Ajutor | None = None


def _opreste_ajutorul() -> None:
    """Oprește ajutorul acestui proces, dacă există (la ieșirea interpretorului, ca niciun proces
    și nicio legătură cu el să nu rămână deschise)."""
    global _AJUTOR
    if _AJUTOR is not None:
        _AJUTOR.opreste()
        _AJUTOR = None


def _mediul_pentru_ajutor() -> dict:
    return {k: v for k, v in os.environ.items() if k not in _MEDIU_NEIMPORTANT}


def _ajutorul(backend: str) -> _Ajutor | None:
    """Ajutorul viu al acestui proces (pornit acum, dacă nu există sau dacă mediul s-a schimbat
    de la pornirea lui), ori None când rangurile trebuie să pornească drept interpretoare noi:
    backend-ul NCCL, un GPU CUDA vizibil, alt sistem decât Linux (pe macOS, o copie a unui proces
    care a încărcat bibliotecile sistemului nu e sigură) sau `CURS_RANGURI_FARA_AJUTOR=1`."""
    global _AJUTOR
    import torch

    if (backend != "gloo" or os.environ.get(VARIABILA_FARA_AJUTOR) == "1" or not sys.platform.startswith("linux")
            or torch.cuda.is_available()):
        return None
    mediu = _mediul_pentru_ajutor()
    if _AJUTOR is not None and (not _AJUTOR.viu() or _AJUTOR.mediu != mediu):
        _AJUTOR.opreste()
        _AJUTOR = None
    if _AJUTOR is None:
        _AJUTOR = _Ajutor(mediu)
        atexit.unregister(_opreste_ajutorul)  # o singură înregistrare, oricâte ajutoare ar urma
        atexit.register(_opreste_ajutorul)
    return _AJUTOR


def _porneste_rangul(ajutor: _Ajutor | None, argumente: list[str], iesire, dosar: Path, rang: int, mediu: dict):
    """Pornește un rang: copiat din ajutor, dacă există și răspunde; altfel, ca interpretor nou."""
    global _AJUTOR
    if ajutor is not None:
        try:
            return ajutor.porneste(argumente, Path(iesire.name), dosar / f"cod_{rang}.txt", mediu)
        except (OSError, RuntimeError, ValueError, KeyError):
            ajutor.opreste()
            if _AJUTOR is ajutor:
                _AJUTOR = None
    return subprocess.Popen([sys.executable, "-u", "-m", __name__, *argumente],
                            stdin=subprocess.DEVNULL, stdout=iesire, stderr=subprocess.STDOUT, env=mediu)


def _rang_copiat(cerere: dict) -> None:
    """Corpul unui rang copiat din ajutor (după `os.fork`): ieșirea în fișierul rangului, mediul,
    dosarul curent și căile notebook-ului, apoi `_lucrator`. Nu se întoarce niciodată."""
    cod = 1
    try:
        signal.signal(signal.SIGINT, signal.default_int_handler)
        fisier = os.open(cerere["iesire"], os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        os.dup2(fisier, 1)
        os.dup2(fisier, 2)
        os.close(fisier)
        nul = os.open(os.devnull, os.O_RDONLY)
        os.dup2(nul, 0)
        os.close(nul)
        sys.stdin = open(0, closefd=False)
        sys.stdout = io.TextIOWrapper(open(1, "wb", buffering=0, closefd=False), encoding="utf-8",
                                      errors="backslashreplace", write_through=True)
        sys.stderr = io.TextIOWrapper(open(2, "wb", buffering=0, closefd=False), encoding="utf-8",
                                      errors="backslashreplace", write_through=True)
        os.environ.clear()
        os.environ.update(cerere["mediu"])
        os.chdir(cerere["dosar_curent"])
        sys.path[:] = list(dict.fromkeys(cerere["cai"] + sys.path))
        sys.argv[1:] = cerere["argumente"]  # ca în rangul pornit drept interpretor nou
        rang, lume, adresa, backend, dosar, limita_s, fire = cerere["argumente"][:7]
        _lucrator(int(rang), int(lume), adresa, backend, dosar, float(limita_s), int(fire))
        cod = 0
    except BaseException:  # noqa: BLE001 — rangul nu are unde să arunce: spune și iese
        with contextlib.suppress(Exception):
            traceback.print_exc()
    finally:
        os._exit(cod)


def _ajutor_main() -> None:
    """Bucla procesului ajutor: importurile o dată, apoi, pentru fiecare cerere (un rând JSON pe
    intrare), un rang copiat cu `os.fork`, al cărui pid îl scrie la ieșire. Își culege rangurile
    terminate și le scrie codul de ieșire. Când intrarea se închide (notebook-ul s-a oprit), își
    oprește rangurile rămase și iese."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # întreruperea din Jupyter o primește notebook-ul
    for nume in _IMPORTURI_AJUTOR:
        with contextlib.suppress(Exception):
            importlib.import_module(nume)
    intrare = sys.stdin.buffer
    rangurile: dict[int, str] = {}

    def culege():
        while rangurile:
            try:
                pid, stare = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            cale = rangurile.pop(pid, None)
            if cale is not None:
                with contextlib.suppress(OSError):
                    _scrie_atomic(Path(cale), str(os.waitstatus_to_exitcode(stare)).encode())

    while True:
        # Cu ranguri în viață, se uită des după cele terminate; altfel doarme până la cererea următoare.
        gata, _, _ = select.select([intrare], [], [], 0.05 if rangurile else None)
        if gata:
            rand = intrare.readline()
            if not rand:
                break
            cerere = json.loads(rand)
            pid = os.fork()
            if pid == 0:
                _rang_copiat(cerere)
            rangurile[pid] = cerere["cod"]
            sys.stdout.write(json.dumps({"pid": pid}) + "\n")
            sys.stdout.flush()
        culege()
    for pid in rangurile:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    for pid, cale in rangurile.items():
        with contextlib.suppress(ChildProcessError, OSError):
            _, stare = os.waitpid(pid, 0)
            _scrie_atomic(Path(cale), str(os.waitstatus_to_exitcode(stare)).encode())


def ruleaza_pe_ranguri(functie, *argumente, ranguri: int = 2, limita_s: float = 120.0,
                       gratie_s: float = 10.0, backend: str | None = None,
                       arata_iesirea: bool = True) -> list:
    """Rulează `functie(*argumente)` în `ranguri` procese cu `torch.distributed` inițializat și
    întoarce valorile lor, în ordinea rangurilor. Vezi descrierea modulului. Aruncă
    `EroareRanguri` (cu ce a făcut fiecare rang) dacă un rang aruncă o excepție, se oprește
    singur sau nu termină în `limita_s` secunde; niciun proces nu rămâne pornit după apel."""
    if ranguri < 1:
        raise ValueError(f"Numărul de ranguri trebuie să fie cel puțin 1, nu {ranguri}.")
    try:
        functie_serializata = _serializeaza((functie, argumente))
    except Exception as e:  # noqa: BLE001
        raise TypeError(
            "Funcția sau argumentele ei nu se pot trimite altor procese (cloudpickle: "
            f"{type(e).__name__}: {str(e).splitlines()[0][:200] if str(e) else ''}). Trimite doar valori simple, "
            "tensori, module și funcții; fișierele deschise, firele de execuție și generatoarele nu trec dintr-un proces în altul."
        ) from None
    backend = backend or alege_backend(ranguri)
    # Nucleele pe care are voie să ruleze procesul (sub profilul Colab, două), împărțite între
    # ranguri: procesele copil moștenesc aceeași afinitate.
    nuclee = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 2)
    fire = max(1, nuclee // ranguri)
    adresa = f"tcp://127.0.0.1:{_port_liber()}"
    # Rangurile văd aceleași module ca procesul acesta (de exemplu, un modul al cursantului
    # alături de notebook): căile lui sys.path, cu dosarul curent în locul lui "".
    cai = [c or os.getcwd() for c in sys.path]
    mediu = {**os.environ, "PYTHONPATH": os.pathsep.join(dict.fromkeys(cai))}
    with tempfile.TemporaryDirectory(prefix="ranguri_") as dosar:
        (Path(dosar) / "functie.pkl").write_bytes(functie_serializata)
        fisiere = [open(Path(dosar) / f"iesire_{rang}.txt", "wb") for rang in range(ranguri)]
        procese = []
        ajutor = _ajutorul(backend)
        start = time.monotonic()
        try:
            for rang in range(ranguri):
                argumente_rang = [str(rang), str(ranguri), adresa, backend, dosar, str(limita_s), str(fire)]
                procese.append(_porneste_rangul(ajutor, argumente_rang, fisiere[rang], Path(dosar), rang, mediu))
            stari: dict[int, StareRang] = {}
            prima_eroare = None
            while len(stari) < ranguri:
                acum = time.monotonic()
                for rang, proces in enumerate(procese):
                    if rang in stari or proces.poll() is None:
                        continue
                    cale = Path(dosar) / f"rezultat_{rang}.pkl"
                    if cale.is_file():
                        rezultat = _citeste_rezultatul(cale)
                        if rezultat[0] == "gata":
                            stari[rang] = StareRang(rang, "gata", valoare=rezultat[1], secunde=acum - start)
                        else:
                            _, nume, mesaj, urma = rezultat
                            stari[rang] = StareRang(rang, "eroare", exceptie=nume, mesaj=mesaj, traceback=urma,
                                                    secunde=acum - start)
                    else:
                        stari[rang] = StareRang(rang, "oprit", cod_iesire=proces.returncode, secunde=acum - start)
                    if stari[rang].fel != "gata" and prima_eroare is None:
                        prima_eroare = acum
                ramase = [r for r in range(ranguri) if r not in stari]
                if not ramase:
                    break
                depasit = acum - start > limita_s
                dupa_eroare = prima_eroare is not None and acum - prima_eroare > gratie_s
                if depasit or dupa_eroare:
                    for rang in ramase:
                        stari[rang] = StareRang(rang, "blocat" if prima_eroare is None else "așteptare",
                                                secunde=acum - start)
                    break
                time.sleep(0.05)
        finally:
            for proces in procese:
                if proces.poll() is None:
                    proces.kill()
                try:
                    proces.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    pass
            for fisier in fisiere:
                fisier.close()
        for rang, stare in stari.items():
            cale = Path(dosar) / f"iesire_{rang}.txt"
            stare.iesire = cale.read_text(encoding="utf-8", errors="replace") if cale.is_file() else ""
    ordonate = [stari[r] for r in range(ranguri)]
    if arata_iesirea:
        for stare in ordonate:
            for rand in stare.iesire.rstrip().splitlines():
                print(f"[rangul {stare.rang}] {rand}")
    if any(s.fel != "gata" for s in ordonate):
        raise EroareRanguri(ordonate)
    return [s.valoare for s in ordonate]


def in_rangurile_pornite(functie, *argumente, ranguri: int | None = None, **_optiuni) -> list:
    """Locul lui `ruleaza_pe_ranguri` într-un rang deja pornit (vezi `rangurile_deja_pornite`): nu
    pornește alte procese, ci rulează `functie(*argumente)` chiar aici, în fiecare rang, și adună
    valorile tuturor rangurilor cu `all_gather_object`, în lista pe care ar fi întors-o
    `ruleaza_pe_ranguri`. Celelalte opțiuni ale pornirii (limita, backend-ul, ieșirea) nu mai au rost."""
    import torch.distributed as dist

    if ranguri is not None and ranguri != dist.get_world_size():
        raise ValueError(f"Experimentul cere {ranguri} ranguri, dar pornirea are {dist.get_world_size()}.")
    valori = [None] * dist.get_world_size()
    dist.all_gather_object(valori, _pe_procesor(functie(*argumente)))
    return valori


@contextlib.contextmanager
def rangurile_deja_pornite(*module):
    """Cât ține blocul, `ruleaza_pe_ranguri` din fiecare modul dat e `in_rangurile_pornite`: funcțiile
    acelor module, chemate dintr-un rang, lucrează în rangurile deja pornite în loc să pornească altele.
    Așa încap mai multe experimente (sau verificări) într-o singură pornire: o pornire plătește procesele
    noi, importurile și prima compilare, un experiment în plus doar cât lucrează el."""
    originale = [m.ruleaza_pe_ranguri for m in module]
    try:
        for modul in module:
            modul.ruleaza_pe_ranguri = in_rangurile_pornite
        yield
    finally:
        for modul, originala in zip(module, originale):
            modul.ruleaza_pe_ranguri = originala


def main(argv=None) -> None:
    """Intrarea unui rang: `python -m curs_compilare.capitole.cap08_ranguri RANG LUME ADRESA
    BACKEND DOSAR LIMITA_S FIRE` (o pornește `ruleaza_pe_ranguri`, nu un om)."""
    argumente = argv or sys.argv[1:]
    if argumente[:1] == ["--ajutor"]:
        _ajutor_main()
        return
    rang, lume, adresa, backend, dosar, limita_s, fire = argumente[:7]
    _lucrator(int(rang), int(lume), adresa, backend, dosar, float(limita_s), int(fire))


if __name__ == "__main__":
    main()
