"""Verificările capitolului 08, atacate cu răspunsuri greșite de fiecare fel: ciotul, None, tipul
greșit, o excepție, compilarea care nu face nimic (`torch.compile(DDP(Sequential))`), modelul fără
DDP, alt backend decât cel dat, o funcție compilată-momeală, o bucată din model compilată, o copie a
modelului, un rang care se blochează, răspunsuri scrise pe de rost sau bune doar pe unele mărimi,
funcția cursului care face chiar exercițiul, recompilarea ascunsă cu configurația globală, modelul
compilat întreg în loc de bloc cu bloc, un cârlig pus în graful compilat; apoi soluțiile de
referință și câte o alternativă corectă.

Răspunsurile greșite ale exercițiilor 1 și 3 se judecă în ranguri. Ca testele să nu pornească
procese noi pentru fiecare răspuns, cele mai multe trec prin corpul verificării (`_corp_1`,
`_corp_3`) într-o singură pornire; câte un apel întreg al verificării (`exercitiul_1`,
`exercitiul_3`) acoperă drumul dinspre notebook, cu limita de timp și rangul blocat."""

import copy
import sys

import cloudpickle
import pytest
import torch
import torch.distributed as dist
import torch.nn as nn

from curs_compilare.capitole import cap08_distribuit as distribuit
from curs_compilare.capitole.cap08_ranguri import ruleaza_pe_ranguri
from curs_compilare.cifre import probleme_de_format
from curs_compilare.exercitii import cap08
from curs_compilare.exercitii.baza import NESCRIS

pytestmark = pytest.mark.skipif(not dist.is_available() or not dist.is_gloo_available(),
                                reason="torch.distributed cu gloo lipsește")

# Funcțiile de aici ajung în ranguri prin valoare, ca acelea scrise într-o celulă de notebook.
cloudpickle.register_pickle_by_value(sys.modules[__name__])

BACKEND = "aot_eager"


def _format_bun(mesaj: str) -> None:
    assert not probleme_de_format(mesaj), (probleme_de_format(mesaj), mesaj)
    assert "Traceback" not in mesaj and "\u015f" not in mesaj and "\u0163" not in mesaj, mesaj


@pytest.fixture(autouse=True)
def mesaje_in_formatul_cursului(monkeypatch):
    originala = cap08.verificare

    def verificare_cu_control(*argumente, **argumente_numite):
        rezultat = originala(*argumente, **argumente_numite)
        _format_bun(rezultat.mesaj)
        return rezultat

    monkeypatch.setattr(cap08, "verificare", verificare_cu_control)


def _respins(rezultat, *cuvinte):
    assert not rezultat, rezultat.mesaj
    for cuvant in cuvinte:
        assert cuvant in rezultat.mesaj, (cuvant, rezultat.mesaj)
    assert "Nu am putut verifica" not in rezultat.mesaj, rezultat.mesaj


def _verdicte_in_ranguri(corp, raspunsuri: dict, seminta: int = 1234) -> dict:
    """Fiecare răspuns trecut prin `corp` (corpul verificării dintr-un rang), toate într-o singură
    pornire a rangurilor; întoarce, pentru rangul 0, {nume: ("bun", ...) sau ("respins", mesaj)}."""
    def in_rang():
        import torch._dynamo

        import warnings

        verdicte = {}
        for nume, raspuns in raspunsuri.items():
            configuratie = torch._dynamo.config.get_config_copy()
            verdicte[nume] = cap08._in_rang(corp, raspuns, seminta, BACKEND)
            with warnings.catch_warnings():  # opțiunile învechite își spun avertismentul la scriere
                warnings.simplefilter("ignore")
                torch._dynamo.config.load_config(configuratie)
            torch._dynamo.reset()
        return verdicte

    return ruleaza_pe_ranguri(in_rang, ranguri=2, limita_s=240, backend="gloo", arata_iesirea=False)[0]


def _acceptate(verdicte: dict, *nume: str) -> None:
    for n in nume:
        assert verdicte[n][0] == "bun", verdicte[n]


def _respinse_cu(verdicte: dict, asteptate: dict) -> None:
    """Fiecare răspuns din `asteptate` e respins, cu un mesaj în formatul cursului care conține
    toate cuvintele lui."""
    for nume, cuvinte in asteptate.items():
        fel, mesaj = verdicte[nume]
        assert fel == "respins", (nume, mesaj)
        _format_bun(mesaj)
        for cuvant in cuvinte:
            assert cuvant in mesaj, (nume, cuvant, mesaj)


# ---------------------------------------------------------------------------------------------
# Exercițiul 1
# ---------------------------------------------------------------------------------------------


class Invelis(nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x):
        return self.model(x)


def _ddp(modul):
    from torch.nn.parallel import DistributedDataParallel as DDP

    return DDP(modul)


def solutie_1(model, backend):
    return torch.compile(_ddp(Invelis(model)), backend=backend)


def alternativa_1(model, backend):  # compilat înainte de DDP
    return _ddp(torch.compile(model, backend=backend))


def fara_nimic_1(model, backend):  # compilarea care nu face nimic
    return torch.compile(_ddp(model), backend=backend)


def fara_ddp_1(model, backend):
    return torch.compile(Invelis(model), backend=backend)


def alt_backend_1(model, backend):
    return _ddp(torch.compile(model, backend="aot_eager"))


def momeala_1(model, backend):  # compilează altceva, antrenează eager
    torch.compile(lambda t: t * 2, backend=backend)(torch.ones(3))
    return _ddp(model)


def doar_primul_strat_1(model, backend):
    model[0] = torch.compile(model[0], backend=backend)
    return _ddp(model)


def copie_1(model, backend):
    return torch.compile(_ddp(Invelis(copy.deepcopy(model))), backend=backend)


def nimic_intors_1(model, backend):
    torch.compile(_ddp(Invelis(model)), backend=backend)


def cu_eroare_1(model, backend):
    return model.nu_exista


def doar_latimea_32(model, backend):  # bun doar pe o mărime
    if model[0].in_features == 32:
        return solutie_1(model, backend)
    return fara_nimic_1(model, backend)


def test_exercitiul_1_raspunsurile_gresite_si_bune_in_ranguri():
    verdicte = _verdicte_in_ranguri(cap08._corp_1, {
        "solutie": solutie_1, "alternativa": alternativa_1, "fara_nimic": fara_nimic_1, "fara_ddp": fara_ddp_1,
        "alt_backend": alt_backend_1, "momeala": momeala_1, "primul_strat": doar_primul_strat_1, "copie": copie_1,
        "nimic_intors": nimic_intors_1, "cu_eroare": cu_eroare_1, "latimea_32": doar_latimea_32,
    })
    _acceptate(verdicte, "solutie", "alternativa")
    asteptate = {
        "fara_nimic": ("niciun graf", "nu face nimic", "torch.nn"),
        "fara_ddp": ("media", "nu e sub DDP"),
        "alt_backend": ("alt backend", "backend=backend"),
        "momeala": ("n-a rulat nicio bucată compilată",),
        "primul_strat": ("mai puține straturi liniare",),
        "copie": ("copie",),
        "nimic_intors": ("None",),
        "cu_eroare": ("AttributeError",),
    }
    _respinse_cu(verdicte, asteptate)
    # Lățimile se aleg la întâmplare; cu sămânța testului primul strat nu are 32 de intrări.
    assert verdicte["latimea_32"][0] == "respins"


def test_exercitiul_1_ciotul_none_si_tipul_fara_sa_porneasca_ranguri():
    def pregateste(model, backend):
        # Scrie aici codul tău.
        raise NotImplementedError

    assert cap08.exercitiul_1(pregateste).mesaj.endswith(NESCRIS)
    _respins(cap08.exercitiul_1(None), "None")
    _respins(cap08.exercitiul_1(42), "int")
    _respins(cap08.exercitiul_1(Invelis), "funcția")


def blocat_in_rangul_0(model, backend):
    import torch.distributed as dist

    if dist.get_rank() == 0:
        dist.barrier()  # doar un rang: celălalt nu vine niciodată la această barieră
        dist.barrier()
    return solutie_1(model, backend)


def test_exercitiul_1_intreg_solutia_si_rangul_blocat(monkeypatch):
    assert cap08.exercitiul_1(solutie_1), "soluția de referință trebuie să treacă"
    monkeypatch.setattr(cap08, "LIMITA_RANGURI_S", 12.0)
    _respins(cap08.exercitiul_1(blocat_in_rangul_0), "operație colectivă")


# ---------------------------------------------------------------------------------------------
# Exercițiul 2 (fără ranguri: o funcție pură)
# ---------------------------------------------------------------------------------------------


def solutie_2(octeti, galeata_mb):
    galeti = [0]
    for marime in reversed(octeti):
        if galeti[-1] >= (1 if len(galeti) == 1 else galeata_mb) * 2**20:
            galeti.append(0)
        galeti[-1] += marime
    if len(galeti) > 1 and galeti[-1] == 0:
        galeti.pop()
    return len(galeti)


def alternativa_2(octeti, galeata_mb):  # cu contoare în loc de listă, întoarce float întreg
    numar, curent = 1, 0
    for marime in octeti[::-1]:
        limita = 2**20 if numar == 1 else galeata_mb * 2**20
        if curent >= limita:
            numar, curent = numar + 1, 0
        curent += marime
    return float(numar - (numar > 1 and curent == 0))


def in_ordinea_inainte(octeti, galeata_mb):
    return solutie_2(list(reversed(octeti)), galeata_mb)


def cu_mai_mare_strict(octeti, galeata_mb):
    galeti = [0]
    for marime in reversed(octeti):
        if galeti[-1] > (1 if len(galeti) == 1 else galeata_mb) * 2**20:
            galeti.append(0)
        galeti[-1] += marime
    if len(galeti) > 1 and galeti[-1] == 0:
        galeti.pop()
    return len(galeti)


def fara_prima_galeata(octeti, galeata_mb):
    galeti = [0]
    for marime in reversed(octeti):
        if galeti[-1] >= galeata_mb * 2**20:
            galeti.append(0)
        galeti[-1] += marime
    if len(galeti) > 1 and galeti[-1] == 0:
        galeti.pop()
    return len(galeti)


def cu_galeata_goala(octeti, galeata_mb):
    galeti = [0]
    for marime in reversed(octeti):
        if galeti[-1] >= (1 if len(galeti) == 1 else galeata_mb) * 2**20:
            galeti.append(0)
        galeti[-1] += marime
    return len(galeti)


def impartire_totala(octeti, galeata_mb):  # „total / găleată”, rotunjit în sus
    import math

    return max(1, math.ceil(sum(octeti) / (galeata_mb * 2**20)))


def functia_cursului(octeti, galeata_mb):
    return distribuit.grafuri_prezise(octeti, galeata_mb)


def test_exercitiul_2():
    assert cap08.exercitiul_2(solutie_2)
    assert cap08.exercitiul_2(alternativa_2)

    def numar_grafuri(octeti, galeata_mb):
        raise NotImplementedError

    assert cap08.exercitiul_2(numar_grafuri).mesaj.endswith(NESCRIS)
    _respins(cap08.exercitiul_2(None), "None")
    _respins(cap08.exercitiul_2(lambda o, g: 2), "mereu 2")
    _respins(cap08.exercitiul_2(in_ordinea_inainte), "DDPOptimizer face", "de la ultimul la primul")
    _respins(cap08.exercitiul_2(cu_mai_mare_strict), "DDPOptimizer face", "cel puțin")
    _respins(cap08.exercitiul_2(fara_prima_galeata), "DDPOptimizer face", "Prima găleată")
    _respins(cap08.exercitiul_2(cu_galeata_goala), "DDPOptimizer face", "goală")
    _respins(cap08.exercitiul_2(impartire_totala), "DDPOptimizer face")
    _respins(cap08.exercitiul_2(functia_cursului), "grafuri_prezise")
    _respins(cap08.exercitiul_2(distribuit.grafuri_prezise), "grafuri_prezise")
    _respins(cap08.exercitiul_2(lambda o, g: str(solutie_2(o, g))), "număr întreg")
    _respins(cap08.exercitiul_2(lambda o, g: solutie_2(o, g) > 0), "număr întreg")
    _respins(cap08.exercitiul_2(lambda o, g: 1 / 0), "ZeroDivisionError")


def test_exercitiul_2_are_cazuri_la_limita_si_alese_la_intamplare():
    from curs_compilare.exercitii.baza import generator_aleator

    unu, doi = cap08._cazuri_2(generator_aleator(1)), cap08._cazuri_2(generator_aleator(2))
    assert len(unu) == 45 and unu != doi
    assert ([2**20] * 4, 1.0) in unu and any(0 in octeti for octeti, _ in unu)


# ---------------------------------------------------------------------------------------------
# Exercițiul 3
# ---------------------------------------------------------------------------------------------


def _fragmenteaza(model, retea, backend, compileaza=lambda i: True):
    from torch.distributed.fsdp import fully_shard

    for indice, bloc in enumerate(model.blocuri):
        if compileaza(indice):
            bloc.compile(backend=backend)
        fully_shard(bloc, mesh=retea)
    fully_shard(model, mesh=retea)
    return model


def solutie_3(model, retea, backend):
    model.register_forward_pre_hook(lambda modul, argumente: (argumente[0].detach().requires_grad_(),))
    return _fragmenteaza(model, retea, backend)


def primul_eager_3(model, retea, backend):
    return _fragmenteaza(model, retea, backend, compileaza=lambda i: i > 0)


def cu_recompilare_3(model, retea, backend):
    return _fragmenteaza(model, retea, backend)


def fara_radacina_3(model, retea, backend):
    from torch.distributed.fsdp import fully_shard

    for bloc in model.blocuri:
        bloc.compile(backend=backend)
        fully_shard(bloc, mesh=retea)
    return model


def limita_recompilari_3(model, retea, backend):
    torch._dynamo.config.recompile_limit = 1  # ascunde recompilarea: primul bloc ar rula eager
    return _fragmenteaza(model, retea, backend, compileaza=lambda i: True)


def model_intreg_3(model, retea, backend):
    _fragmenteaza(model, retea, backend, compileaza=lambda i: False)
    return torch.compile(model, backend=backend)


def carlig_in_bloc_3(model, retea, backend):
    model.blocuri[0].register_forward_pre_hook(lambda modul, argumente: (argumente[0].detach().requires_grad_(),))
    return _fragmenteaza(model, retea, backend)


def doar_primul_3(model, retea, backend):
    return _fragmenteaza(model, retea, backend, compileaza=lambda i: i == 0)


def fara_compilare_3(model, retea, backend):
    return _fragmenteaza(model, retea, backend, compileaza=lambda i: False)


def alt_model_3(model, retea, backend):
    model.intrare = nn.Linear(model.cap.in_features, model.cap.in_features)  # schimbă calculul
    return solutie_3(model, retea, backend)


def test_exercitiul_3_raspunsurile_gresite_si_bune_in_ranguri():
    verdicte = _verdicte_in_ranguri(cap08._corp_3, {
        "solutie": solutie_3, "primul_eager": primul_eager_3, "recompilare": cu_recompilare_3,
        "fara_radacina": fara_radacina_3, "limita": limita_recompilari_3, "intreg": model_intreg_3,
        "carlig_in_bloc": carlig_in_bloc_3, "doar_primul": doar_primul_3, "fara_compilare": fara_compilare_3,
        "alt_model": alt_model_3,
    })
    _acceptate(verdicte, "solutie", "primul_eager")
    asteptate = {
        "recompilare": ("compilări în loc de una", "requires_grad"),
        "fara_radacina": ("rădăcina",),
        "limita": ("configurația globală", "recompile_limit"),
        "carlig_in_bloc": ("întrerupere a grafului", "requires_grad_()"),
        "doar_primul": ("blocuri",),
        "fara_compilare": ("niciun graf",),
        "alt_model": ("diferă",),
    }
    _respinse_cu(verdicte, asteptate)
    assert verdicte["intreg"][0] == "respins", verdicte["intreg"]


def test_exercitiul_3_intreg_solutia_si_ciotul():
    def pregateste_fsdp(model, retea, backend):
        raise NotImplementedError

    assert cap08.exercitiul_3(pregateste_fsdp).mesaj.endswith(NESCRIS)
    assert cap08.exercitiul_3(solutie_3), "soluția de referință trebuie să treacă"
