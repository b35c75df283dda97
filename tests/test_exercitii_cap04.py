"""Verificările capitolului 04 acceptă răspunsurile corecte (în mai multe forme) și resping
greșelile tipice cu explicația potrivită."""

import pytest
import torch

from curs_compilare.exercitii import cap04
from curs_compilare.exercitii.baza import NESCRIS

are_gpu = pytest.mark.skipif(not torch.cuda.is_available(), reason="cere un GPU CUDA")


def _nescris(*argumente, **argumente_numite):
    raise NotImplementedError


def _arunca(*argumente, **argumente_numite):
    raise ValueError("ceva n-a mers")


# --- Exercițiul 1 -----------------------------------------------------------------------------


def _reia_corect(graf, x_static, y_static, x_nou):
    x_static.copy_(x_nou)
    graf.replay()
    return y_static.clone()


def _reia_cu_felii(graf, x_static, y_static, x_nou):
    x_static[:] = x_nou
    graf.replay()
    return y_static.detach().clone()


def _reia_de_doua_ori(graf, x_static, y_static, x_nou):
    x_static.copy_(x_nou)
    graf.replay()
    graf.replay()
    return torch.empty_like(y_static).copy_(y_static)


def _reia_fara_replay(graf, x_static, y_static, x_nou):
    x_static.copy_(x_nou)
    return y_static.clone()


_MODEL_EAGER = cap04._retea_mica("cpu")


def _reia_eager(graf, x_static, y_static, x_nou):
    with torch.no_grad():
        return _MODEL_EAGER.to(x_nou.device)(x_nou)


def _reia_cu_atribuire(graf, x_static, y_static, x_nou):
    x_static = x_nou  # noqa: F841 (greșeala: doar leagă numele local)
    graf.replay()
    return y_static.clone()


def _reia_cu_data(graf, x_static, y_static, x_nou):
    x_static.data = x_nou.clone()
    graf.replay()
    return y_static.clone()


def _reia_fara_clone(graf, x_static, y_static, x_nou):
    x_static.copy_(x_nou)
    graf.replay()
    return y_static


def _reia_cu_vedere(graf, x_static, y_static, x_nou):
    x_static.copy_(x_nou)
    graf.replay()
    return y_static.detach()[:]


_BUFFER_GLOBAL = {}


def _reia_in_buffer_global(graf, x_static, y_static, x_nou):
    x_static.copy_(x_nou)
    graf.replay()
    buffer = _BUFFER_GLOBAL.setdefault("y", torch.empty_like(y_static))
    if buffer.shape != y_static.shape or buffer.device != y_static.device:
        buffer = _BUFFER_GLOBAL["y"] = torch.empty_like(y_static)
    return buffer.copy_(y_static)


def _reia_clone_inainte(graf, x_static, y_static, x_nou):
    x_static.copy_(x_nou)
    copie = y_static.clone()
    graf.replay()
    return copie


def _reia_copiere_dupa(graf, x_static, y_static, x_nou):
    graf.replay()
    x_static.copy_(x_nou)
    return y_static.clone()


def _reia_fara_return(graf, x_static, y_static, x_nou):
    x_static.copy_(x_nou)
    graf.replay()


def _reia_gresit(graf, x_static, y_static, x_nou):
    x_static.copy_(x_nou)
    graf.replay()
    return y_static.clone() * 2


def _reia_lista(graf, x_static, y_static, x_nou):
    x_static.copy_(x_nou)
    graf.replay()
    return y_static.tolist()


@pytest.mark.parametrize("reia", [_reia_corect, _reia_cu_felii, _reia_de_doua_ori])
def test_ex1_accepta_variante_corecte(reia):
    rezultat = cap04.exercitiul_1(reia)
    assert rezultat, rezultat.mesaj
    assert "trei rezultate corecte" in rezultat.mesaj


@pytest.mark.parametrize(
    "reia, fragment",
    [
        (_reia_fara_replay, "N-ai apelat graf.replay()"),
        (_reia_eager, "execuția eager"),
        (_reia_cu_atribuire, "aceeași adresă de memorie"),
        (_reia_cu_data, "memoria din spatele lui x_static"),
        (_reia_fara_clone, "bufferul static y_static"),
        (_reia_cu_vedere, "o vedere a lui"),
        (_reia_in_buffer_global, "s-a schimbat după apelurile următoare"),
        (_reia_clone_inainte, "ieșirea intrării precedente"),
        (_reia_copiere_dupa, "ieșirea intrării precedente"),
        (_reia_fara_return, "None"),
        (_reia_gresit, "Valorile diferă"),
        (_reia_lista, "Trebuia un tensor"),
        (_arunca, "Codul tău a ridicat ValueError"),
        (None, "Trebuia o funcție"),
    ],
)
def test_ex1_respinge_greselile_tipice(reia, fragment):
    rezultat = cap04.exercitiul_1(reia)
    assert not rezultat
    assert fragment in rezultat.mesaj
    assert "Traceback" not in rezultat.mesaj


def test_ex1_nescris():
    rezultat = cap04.exercitiul_1(_nescris)
    assert not rezultat and rezultat.mesaj == NESCRIS


def test_graf_simulat_citeste_si_scrie_aceeasi_memorie():
    model = cap04._retea_mica("cpu")
    x_static = torch.zeros(4, 32)
    graf = cap04.GrafSimulat(model, x_static)
    y_static = graf.y_static
    adresa = y_static.data_ptr()
    x_nou = torch.randn(4, 32)
    x_static.copy_(x_nou)
    graf.replay()
    assert y_static.data_ptr() == adresa
    torch.testing.assert_close(y_static, model(x_nou).detach())
    # legarea numelui de alt tensor nu schimbă memoria citită de „graf”
    x_static = torch.randn(4, 32)
    graf.replay()
    torch.testing.assert_close(y_static, model(x_nou).detach())


# --- Exercițiul 2 -----------------------------------------------------------------------------


def _tot_cu_clone(model, intrari):
    return [model(x).clone() for x in intrari]


def _tot_cu_detach_clone(model, intrari):
    return tuple(model(x).detach().clone() for x in intrari)


def _tot_cu_mark_step_si_clone(model, intrari):
    iesiri = []
    for x in intrari:
        torch.compiler.cudagraph_mark_step_begin()
        iesiri.append(model(x).clone())
    return iesiri


def _tot_prin_stack(model, intrari):
    return list(torch.stack([model(x).clone() for x in intrari]))


def _tot_naiv(model, intrari):
    return [model(x) for x in intrari]


def _tot_doar_mark_step(model, intrari):
    iesiri = []
    for x in intrari:
        torch.compiler.cudagraph_mark_step_begin()
        iesiri.append(model(x))
    return iesiri


def _tot_cu_detach(model, intrari):
    return [model(x).detach() for x in intrari]


def _tot_cu_cpu(model, intrari):
    return [model(x).cpu() for x in intrari]


def _tot_clone_la_final(model, intrari):
    iesiri = [model(x) for x in intrari]
    return [y.clone() for y in iesiri]


def _tot_fara_return(model, intrari):
    for x in intrari:
        model(x).clone()


def _tot_stack(model, intrari):
    return torch.stack([model(x).clone() for x in intrari])


def _tot_generator(model, intrari):
    return (model(x).clone() for x in intrari)


def _tot_doar_prima(model, intrari):
    return [model(intrari[0]).clone()]


def _tot_gresit(model, intrari):
    return [model(x).clone() * 2 for x in intrari]


def _tot_item(model, intrari):
    return [model(x).sum().item() for x in intrari]


def _tot_cu_none(model, intrari):
    return [model(x).clone() for x in intrari[:-1]] + [None]


@pytest.mark.parametrize(
    "ruleaza_tot", [_tot_cu_clone, _tot_cu_detach_clone, _tot_cu_mark_step_si_clone, _tot_prin_stack]
)
def test_ex2_accepta_variante_corecte(ruleaza_tot):
    rezultat = cap04.exercitiul_2(ruleaza_tot)
    assert rezultat, rezultat.mesaj
    assert "memoria ei" in rezultat.mesaj


@pytest.mark.parametrize(
    "ruleaza_tot, fragment",
    [
        (_tot_naiv, "același tensor"),
        (_tot_doar_mark_step, "singur nu ajunge"),
        (_tot_cu_detach, "același tensor"),
        (_tot_clone_la_final, "valorile ultimei intrări"),
        (_tot_fara_return, "None"),
        (_tot_stack, "un singur tensor"),
        (_tot_generator, "generator"),
        (_tot_doar_prima, "1 elemente"),
        (_tot_gresit, "Valorile diferă"),
        (_tot_item, "nu e un tensor"),
        (_tot_cu_none, "Elementul 3"),
        (_arunca, "Codul tău a ridicat ValueError"),
        (None, "Trebuia o funcție"),
    ],
)
def test_ex2_respinge_greselile_tipice(ruleaza_tot, fragment):
    rezultat = cap04.exercitiul_2(ruleaza_tot)
    assert not rezultat
    assert fragment in rezultat.mesaj
    assert "Traceback" not in rezultat.mesaj


def test_ex2_cpu_fara_copie_pe_cpu():
    rezultat = cap04.exercitiul_2(_tot_cu_cpu)
    if torch.cuda.is_available():
        assert rezultat, rezultat.mesaj  # pe GPU, .cpu() chiar copiază
    else:
        assert not rezultat and ".cpu()" in rezultat.mesaj and ".clone()" in rezultat.mesaj


def test_ex2_nescris():
    rezultat = cap04.exercitiul_2(_nescris)
    assert not rezultat and rezultat.mesaj == NESCRIS


def test_model_cu_iesire_statica_refoloseste_bufferul():
    model = cap04.ModelCuIesireStatica(cap04._retea_mica("cpu"))
    a, b = torch.randn(2, 32), torch.randn(2, 32)
    ya = model(a)
    valori_a = ya.clone()
    yb = model(b)
    assert ya is yb and model.apeluri == 2
    assert not torch.allclose(ya, valori_a)


class _ModelCaCelCompilat:
    """Ca un model compilat cu reduce-overhead: la un apel nou, citirea ieșirii vechi ridică
    eroarea pe care o ridică PyTorch pentru o ieșire a grafului CUDA suprascrisă."""

    MESAJ = "Error: accessing tensor output of CUDAGraphs that has been overwritten by a subsequent run."

    def __init__(self, model):
        self.model = model
        self._ultima = None

    def __call__(self, x):
        if self._ultima is not None:
            torch._C._set_storage_data_ptr_access_error_msg(self._ultima.untyped_storage()._cdata, self.MESAJ)
        with torch.no_grad():
            self._ultima = self.model(x)
        return self._ultima


def _verifica_ca_cel_compilat(ruleaza_tot):
    modul = cap04._retea_mica("cpu")
    intrari = cap04._intrari(4, 2, "cpu", samanta=3)
    with torch.no_grad():
        asteptate = [modul(x) for x in intrari]
    model = _ModelCaCelCompilat(modul)
    return cap04.verificare(
        "Exercițiul 2",
        lambda: cap04._verifica_cu_model(ruleaza_tot, model, intrari, asteptate, cap04._toleranta("cpu")) or "ok",
    )


def test_ex2_traduce_eroarea_iesirii_suprascrise():
    assert _verifica_ca_cel_compilat(_tot_cu_clone)
    rezultat = _verifica_ca_cel_compilat(_tot_naiv)
    assert not rezultat
    assert "suprascrisă" in rezultat.mesaj and "când am citit lista" in rezultat.mesaj
    rezultat = _verifica_ca_cel_compilat(_tot_clone_la_final)
    assert not rezultat
    assert "suprascrisă" in rezultat.mesaj and "chiar în codul tău" in rezultat.mesaj


@are_gpu
def test_ex2_gpu_cu_reduce_overhead_adevarat():
    assert cap04.exercitiul_2(_tot_cu_clone)
    assert cap04.exercitiul_2(_tot_cu_mark_step_si_clone)
    assert cap04.exercitiul_2(_tot_cu_cpu)
    modul, compilat = cap04._model_compilat_pe_gpu()
    intrari = cap04._intrari(4, 2, "cuda", samanta=5)
    with torch.no_grad():
        asteptate = [modul(x) for x in intrari]
    toleranta = cap04._toleranta("cuda")

    def verifica(ruleaza_tot):
        return cap04.verificare(
            "Exercițiul 2",
            lambda: cap04._verifica_cu_model(ruleaza_tot, compilat, intrari, asteptate, toleranta) or "ok",
        )

    assert verifica(_tot_cu_clone)
    assert verifica(_tot_cu_mark_step_si_clone)
    # Cu modelul compilat adevărat, greșeala apare fie ca același tensor întors la fiecare apel
    # (ieșirea din cache, sub torch.no_grad), fie ca eroarea de ieșire suprascrisă. Asta doar cât
    # timp fiecare apel e un pas nou: după un cudagraph_mark_step_begin() oarecare, pașii avansează
    # doar la următorul mark_step, iar apelurile din același pas primesc memorie nouă (de aceea
    # greșelile le prinde întâi ModelCuIesireStatica). Aici pornim din starea unui proces proaspăt.
    from torch._inductor import cudagraph_trees

    for gresit in (_tot_naiv, _tot_doar_mark_step, _tot_clone_la_final):
        cudagraph_trees.MarkStepBox.mark_step_counter = 0
        rezultat = verifica(gresit)
        assert not rezultat, (gresit.__name__, rezultat.mesaj)
        assert any(f in rezultat.mesaj for f in ("același tensor", "ultimei intrări", "suprascrisă")), rezultat.mesaj


@are_gpu
def test_ex1_gpu_foloseste_un_graf_cuda_adevarat():
    tipuri = []

    def reia(graf, x_static, y_static, x_nou):
        tipuri.append(type(graf._graf).__name__)
        return _reia_corect(graf, x_static, y_static, x_nou)

    assert cap04.exercitiul_1(reia)
    assert tipuri == ["CUDAGraph"] * 3


# --- Exercițiul 3 -----------------------------------------------------------------------------


def _rentabile_corect(masuratori, prag=1.2):
    return sorted(lot for lot, (eager, ro) in masuratori.items() if eager / ro >= prag)


def _rentabile_cu_bucla(masuratori, prag=1.2):
    loturi = []
    for lot in sorted(masuratori):
        timp_eager, timp_ro = masuratori[lot]
        if timp_eager >= prag * timp_ro:
            loturi.append(lot)
    return tuple(loturi)


def _rentabile_inversat(masuratori, prag=1.2):
    return sorted(lot for lot, (eager, ro) in masuratori.items() if ro / eager >= prag)


def _rentabile_comparatie_inversata(masuratori, prag=1.2):
    return sorted(lot for lot, (eager, ro) in masuratori.items() if eager / ro < prag)


def _rentabile_strict(masuratori, prag=1.2):
    return sorted(lot for lot, (eager, ro) in masuratori.items() if eager / ro > prag)


def _rentabile_prag_scris_de_mana(masuratori, prag=1.2):
    return sorted(lot for lot, (eager, ro) in masuratori.items() if eager / ro >= 1.2)


def _rentabile_accelerari(masuratori, prag=1.2):
    return [eager / ro for lot, (eager, ro) in sorted(masuratori.items()) if eager / ro >= prag]


def _rentabile_perechi(masuratori, prag=1.2):
    return [(lot, eager / ro) for lot, (eager, ro) in sorted(masuratori.items()) if eager / ro >= prag]


def _rentabile_cu_break(masuratori, prag=1.2):
    loturi = []
    for lot in sorted(masuratori):
        eager, ro = masuratori[lot]
        if eager / ro < prag:
            break
        loturi.append(lot)
    return loturi


def _rentabile_nesortat(masuratori, prag=1.2):
    return [lot for lot, (eager, ro) in masuratori.items() if eager / ro >= prag]


def _rentabile_set(masuratori, prag=1.2):
    return {lot for lot, (eager, ro) in masuratori.items() if eager / ro >= prag}


def _rentabile_dict(masuratori, prag=1.2):
    return {lot: eager / ro for lot, (eager, ro) in masuratori.items() if eager / ro >= prag}


def _rentabile_scris_de_mana(masuratori, prag=1.2):
    return [1, 2, 4, 8, 16]


def _rentabile_fara_return(masuratori, prag=1.2):
    sorted(lot for lot, (eager, ro) in masuratori.items() if eager / ro >= prag)


def _rentabile_fara_prag(masuratori):
    return sorted(lot for lot, (eager, ro) in masuratori.items() if eager / ro >= 1.2)


def _rentabile_prag_obligatoriu(masuratori, prag):
    return _rentabile_corect(masuratori, prag)


def _rentabile_alt_implicit(masuratori, prag=1.5):
    return _rentabile_corect(masuratori, prag)


def _rentabile_gresit(masuratori, prag=1.2):
    return sorted(lot for lot, (eager, ro) in masuratori.items() if eager - ro >= prag * 1e-3)


@pytest.mark.parametrize("functie", [_rentabile_corect, _rentabile_cu_bucla])
def test_ex3_accepta_variante_corecte(functie):
    rezultat = cap04.exercitiul_3(functie)
    assert rezultat, rezultat.mesaj
    assert "măsurători" in rezultat.mesaj


def test_ex3_punctele_exact_la_prag_sunt_exacte():
    for descriere, masuratori, prag in cap04._CAZURI_3:
        if "exact la prag" not in descriere:
            continue
        prag = 1.2 if prag is None else prag
        egale = [lot for lot, (e, r) in masuratori.items() if e / r == prag]
        assert egale, descriere
        for lot in egale:
            e, r = masuratori[lot]
            assert e >= prag * r and r / e <= 1 / prag and not e / r > prag


def test_ex3_exemplul_exportat():
    assert _rentabile_corect(cap04.MASURATORI_EXEMPLU) == [1, 2, 4, 8, 16]


@pytest.mark.parametrize(
    "functie, fragment",
    [
        (_rentabile_inversat, "raportul pe dos"),
        (_rentabile_comparatie_inversata, "inversat comparația"),
        (_rentabile_strict, "> în loc de >="),
        (_rentabile_prag_scris_de_mana, "Ignori argumentul prag"),
        (_rentabile_accelerari, "accelerările"),
        (_rentabile_perechi, "perechi"),
        (_rentabile_cu_break, "primul lot sub prag"),
        (_rentabile_nesortat, "nu sunt sortate"),
        (_rentabile_set, "set"),
        (_rentabile_dict, "dicționar"),
        (_rentabile_scris_de_mana, "același răspuns"),
        (_rentabile_fara_return, "None"),
        (_rentabile_fara_prag, "primească și pragul"),
        (_rentabile_prag_obligatoriu, "valoarea implicită 1.2"),
        (_rentabile_alt_implicit, "Valoarea implicită a lui prag e 1.5"),
        (_rentabile_gresit, "trebuia"),
        (_arunca, "Codul tău a ridicat ValueError"),
        (None, "Trebuia o funcție"),
    ],
)
def test_ex3_respinge_greselile_tipice(functie, fragment):
    rezultat = cap04.exercitiul_3(functie)
    assert not rezultat
    assert fragment in rezultat.mesaj, rezultat.mesaj
    assert "Traceback" not in rezultat.mesaj


def test_ex3_nescris():
    rezultat = cap04.exercitiul_3(_nescris)
    assert not rezultat and rezultat.mesaj == NESCRIS


def test_fara_sedile():
    import pathlib

    for fisier in (pathlib.Path(cap04.__file__), pathlib.Path(__file__)):
        text = fisier.read_text(encoding="utf-8")
        assert not any(c in text for c in "\u015f\u015e\u0163\u0162"), fisier
